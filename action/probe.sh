#!/usr/bin/env bash
# Runs prober check once with the action's inputs and reports through step outputs and the
# job summary. It always exits 0: the gate step decides, so that the SARIF upload between
# them still runs on a failing server.
#
# Inputs come as environment variables (INPUT_*), never pasted into the script, so that no
# input value can become shell code. Reads also PROBER, RUNNER_TEMP, GITHUB_OUTPUT and
# GITHUB_STEP_SUMMARY.
set -uo pipefail

: "${PROBER:?}" "${RUNNER_TEMP:?}" "${GITHUB_OUTPUT:?}"

dir="$(mktemp -d "$RUNNER_TEMP/mcpwatch.XXXXXX")"
report="$dir/report.json"
markdown="$dir/report.md"
args=(check --format "$INPUT_FORMAT" --fail-on "$INPUT_FAIL_ON"
  --write "json=$report" --write "markdown=$markdown")
if [ "$INPUT_UPLOAD_SARIF" = "true" ]; then
  sarif="$dir/report.sarif"
  args+=(--write "sarif=$sarif")
  if [ -n "$INPUT_SARIF_ARTIFACT" ]; then
    args+=(--sarif-artifact "$INPUT_SARIF_ARTIFACT")
  fi
fi
if [ -n "$INPUT_BASELINE" ]; then
  args+=(--baseline "$INPUT_BASELINE")
fi
if [ -n "$INPUT_PROTOCOL_VERSION" ]; then
  args+=(--protocol-version "$INPUT_PROTOCOL_VERSION")
fi
if [ -n "$INPUT_OFFICIAL_SCHEMAS" ]; then
  args+=(--official-schemas "$INPUT_OFFICIAL_SCHEMAS")
fi

# The headers the user names as credentials, besides those that always are.
# Lowercased with tr, not ${x,,}: macOS runs its bash 3.2.
lower() { printf '%s' "$1" | tr '[:upper:]' '[:lower:]'; }
named=" $(lower "${INPUT_MASK_HEADERS//,/ }" | tr -s '[:space:]' ' ') "
is_credential() {
  local name
  name="$(lower "$1")"
  case "$name" in
    authorization | proxy-authorization | cookie | *token* | *key* | *secret*) return 0 ;;
  esac
  case "$named" in
    *" $name "*) return 0 ;;
  esac
  return 1
}

# GitHub stars out a masked value wherever it appears in the log, so only credentials are
# masked: masking "ci" of X-Tenant: ci would hide every "ci" of the job's log.
while IFS= read -r line; do
  [ -z "${line//[[:space:]]/}" ] && continue
  name="${line%%:*}"
  name="${name//[[:space:]]/}"
  value="${line#*:}"
  value="${value#"${value%%[![:space:]]*}"}"
  value="${value%"${value##*[![:space:]]}"}"
  if [ -n "$value" ] && is_credential "$name"; then
    echo "::add-mask::$value"
    # "Bearer TOKEN": the token alone too, should the server echo it back.
    credential="${value#*[[:space:]]}"
    credential="${credential#"${credential%%[![:space:]]*}"}"
    if [ "$credential" != "$value" ] && [ -n "$credential" ]; then
      echo "::add-mask::$credential"
    fi
  fi
  args+=(--header "$line")
done <<< "$INPUT_HEADERS"
if [ -n "$INPUT_BEARER_TOKEN" ]; then
  echo "::add-mask::$INPUT_BEARER_TOKEN"
  # By name, not value: the token stays out of the process list.
  args+=(--bearer-token-env INPUT_BEARER_TOKEN)
fi
if [ -n "$INPUT_ARGS" ]; then
  read -r -a extra <<< "$INPUT_ARGS"
  args+=("${extra[@]}")
fi

if [ -n "$INPUT_TARGET" ] && [ -n "$INPUT_COMMAND" ]; then
  echo "::error title=mcpwatch::give either target or command, not both"
  code=2
elif [ -n "$INPUT_TARGET" ]; then
  "$PROBER" "${args[@]}" "$INPUT_TARGET"
  code=$?
elif [ -n "$INPUT_COMMAND" ]; then
  "$PROBER" "${args[@]}" --dir "$INPUT_WORKING_DIRECTORY" -- bash -c "$INPUT_COMMAND"
  code=$?
else
  echo "::error title=mcpwatch::give the server to probe: the target input (a URL) or the command input"
  code=2
fi
case "$code" in
  0) verdict=pass ;;
  1) if [ -s "$report" ]; then verdict=fail; else verdict=error; fi ;;
  *) verdict=error ;;
esac
{
  echo "verdict=$verdict"
  echo "exit-code=$code"
  if [ -s "$report" ]; then echo "report=$report"; fi
  if [ -s "$markdown" ]; then echo "markdown=$markdown"; fi
  if [ -n "${sarif:-}" ] && [ -s "$sarif" ]; then echo "sarif=$sarif"; fi
} >> "$GITHUB_OUTPUT"
if [ "$INPUT_JOB_SUMMARY" = "true" ] && [ -s "$markdown" ]; then
  cat "$markdown" >> "$GITHUB_STEP_SUMMARY"
fi
exit 0
