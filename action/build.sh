#!/usr/bin/env bash
# Builds the prober from the action's checkout into BIN_DIR, with module and build caches of
# its own under GO_DIR (which the action caches), so that nothing of the job's Go is used or
# changed but the go command itself. Only `check` is built (-tags checkonly): the monitor's
# commands and their Postgres, Slack and cron code would make the binary half again as big.
#
# Reads: ACTION_PATH, BIN_DIR, GO_DIR, PROBER (the path to build), GITHUB_OUTPUT.
set -euo pipefail

: "${ACTION_PATH:?}" "${BIN_DIR:?}" "${GO_DIR:?}" "${PROBER:?}"

if ! command -v go >/dev/null 2>&1; then
  echo "::error title=mcpwatch::no go command to build the prober with, and no released prober for this version of the action"
  exit 1
fi
mkdir -p "$BIN_DIR" "$GO_DIR/mod" "$GO_DIR/build"
start=$SECONDS
# The job's own Go settings must not leak into this build: a GOOS or GOARCH set to
# cross-compile the user's code, GOFLAGS such as -mod=vendor, a go.work above the action, or
# GOTOOLCHAIN=local pinning a Go older than go.mod asks for.
(
  cd "$ACTION_PATH"
  env -u GOOS -u GOARCH -u GOFLAGS \
    GOWORK=off GOTOOLCHAIN=auto CGO_ENABLED=0 \
    GOMODCACHE="$GO_DIR/mod" GOCACHE="$GO_DIR/build" \
    go build -modcacherw -trimpath -tags checkonly -o "$PROBER" ./cmd/prober
)
echo "mcpwatch: built $("$PROBER" version) in $((SECONDS - start)) s"
