#!/usr/bin/env bash
# Fails the job on the probe step's verdict: fail (unless INPUT_FAIL_JOB is false) with
# prober check's exit code, error (the prober could not run) always.
set -euo pipefail

case "${VERDICT:-}" in
  pass) echo "mcpwatch: the server passes" ;;
  fail)
    echo "mcpwatch: the server fails the conformance check (see the annotations and the job summary)"
    if [ "$INPUT_FAIL_JOB" = "true" ]; then exit "$EXIT_CODE"; fi ;;
  *)
    echo "::error title=mcpwatch::prober check could not run (exit code ${EXIT_CODE:-none}); see the step above"
    exit 1 ;;
esac
