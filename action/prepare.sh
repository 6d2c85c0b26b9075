#!/usr/bin/env bash
# Decides where the prober comes from, before anything is cached or built: the release of the
# action's version when there is one (downloaded and checked against the release's
# checksums), else a build of the action's own source into a folder of the runner's temp
# directory, with Go module and build caches of its own. It writes step outputs only: the
# job's PATH, Go and environment are left as they were.
#
# Reads: ACTION_PATH (the action's checkout), ACTION_REF and ACTION_REPOSITORY (often empty in
# a composite action, so also read from ACTION_PATH), RUNNER_TEMP, RUNNER_OS, RUNNER_ARCH,
# GITHUB_SERVER_URL, GITHUB_OUTPUT.
set -euo pipefail

: "${ACTION_PATH:?}" "${RUNNER_TEMP:?}" "${RUNNER_OS:?}" "${RUNNER_ARCH:?}" "${GITHUB_OUTPUT:?}"

root="$RUNNER_TEMP/mcpwatch"
bin_dir="$root/bin"
go_dir="$root/go"
exe=prober
if [ "$RUNNER_OS" = Windows ]; then exe=prober.exe; fi
prober="$bin_dir/$exe"

case "$RUNNER_OS" in
  Linux) goos=linux ;;
  macOS) goos=darwin ;;
  Windows) goos=windows ;;
  *) echo "::error title=mcpwatch::unknown RUNNER_OS $RUNNER_OS"; exit 1 ;;
esac
case "$RUNNER_ARCH" in
  X64) goarch=amd64 ;;
  ARM64) goarch=arm64 ;;
  *) echo "::error title=mcpwatch::unsupported RUNNER_ARCH $RUNNER_ARCH (the prober is built for X64 and ARM64)"; exit 1 ;;
esac

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}
# sha256 of each file whose NUL-separated name comes on stdin, in one process.
sha256_files() {
  if command -v sha256sum >/dev/null 2>&1; then xargs -0 sha256sum; else xargs -0 shasum -a 256; fi
}

# The runner keeps a downloaded action in .../_actions/OWNER/REPO/REF: the path names the
# repository and ref when the expressions that should do not.
ref="${ACTION_REF:-}"
repo="${ACTION_REPOSITORY:-}"
trimmed="${ACTION_PATH%/}"
case "$trimmed" in
  */_actions/*/*/*)
    tail="${trimmed#*/_actions/}"
    IFS=/ read -r owner name path_ref _ <<< "$tail"
    if [ -z "$repo" ]; then repo="$owner/$name"; fi
    if [ -z "$ref" ]; then ref="$path_ref"; fi
    ;;
esac

# The key of the built binary: everything the build reads from the action (the Go source
# the prober is built from, go.mod, go.sum and the build script with its flags) and the
# platform. The cache's own hashFiles() skips files outside the workspace, where the action
# lives, so the hash is computed here.
src_hash="$(
  cd "$ACTION_PATH"
  find . \( -name .git -o -name .cache -o -name testdata -o -name node_modules \) -prune -o \
    -type f \( \( -name '*.go' ! -name '*_test.go' \) -o -name go.mod -o -name go.sum -o -path ./action/build.sh \) -print |
    LC_ALL=C sort | tr '\n' '\0' | sha256_files | sha256 | cut -c1-20
)"

{
  echo "prober=$prober"
  echo "bin-dir=$bin_dir"
  echo "go-dir=$go_dir"
  echo "bin-key=mcpwatch-prober-$goos-$goarch-$src_hash"
  echo "go-key=mcpwatch-go-$goos-$goarch-$src_hash"
  echo "go-restore-key=mcpwatch-go-$goos-$goarch-"
} >> "$GITHUB_OUTPUT"

# A Go of 1.21 or later can build the prober: it fetches the release go.mod asks for
# itself (GOTOOLCHAIN=auto) into the action's own module cache.
has_go=false
if command -v go >/dev/null 2>&1; then
  v="$(go env GOVERSION 2>/dev/null || true)"
  if [[ "$v" =~ ^go1\.([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 21 ]; then has_go=true; fi
fi
echo "has-go=$has_go" >> "$GITHUB_OUTPUT"

# A release exists only for a version tag (v1.2.3); a branch, a commit or a moving major tag
# (v1) is built.
if ! [[ "$ref" =~ ^v([0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?)$ ]] || [ -z "$repo" ] || [ "$goos" = windows ]; then
  echo "ready=false" >> "$GITHUB_OUTPUT"
  exit 0
fi
version="${BASH_REMATCH[1]}"
archive="mcpwatch_${version}_${goos}_${goarch}.tar.gz"
base="${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download/v$version"
work="$(mktemp -d "$RUNNER_TEMP/mcpwatch-release.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fetch() {
  curl --fail --silent --show-error --location --retry 2 --max-time 120 -o "$2" "$1"
}
if ! fetch "$base/checksums.txt" "$work/checksums.txt" 2>"$work/err" ||
  ! fetch "$base/$archive" "$work/$archive" 2>>"$work/err"; then
  echo "mcpwatch: no released prober for v$version at $base ($(tr '\n' ' ' < "$work/err")); building it"
  echo "ready=false" >> "$GITHUB_OUTPUT"
  exit 0
fi
want="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$work/checksums.txt")"
got="$(sha256 "$work/$archive" | cut -d' ' -f1)"
if [ -z "$want" ] || [ "$want" != "$got" ]; then
  echo "::warning title=mcpwatch::the released $archive does not match checksums.txt of v$version (want ${want:-no entry}, got $got); building the prober from the action's source instead"
  echo "ready=false" >> "$GITHUB_OUTPUT"
  exit 0
fi
mkdir -p "$work/x" "$bin_dir"
if ! tar -xzf "$work/$archive" -C "$work/x" "$exe" 2>"$work/err"; then
  echo "::warning title=mcpwatch::$archive of v$version holds no $exe ($(tr '\n' ' ' < "$work/err")); building the prober instead"
  echo "ready=false" >> "$GITHUB_OUTPUT"
  exit 0
fi
mv "$work/x/$exe" "$prober"
chmod +x "$prober"
echo "mcpwatch: using the released prober v$version ($archive, sha256 $got)"
echo "ready=true" >> "$GITHUB_OUTPUT"
