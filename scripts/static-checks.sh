#!/usr/bin/env bash
# The suite's static checks (issue #28): the type check, the linter and the formatter's check,
# all three at once. Each is one single-threaded process, so on a 2-core machine running them
# one after another left a core idle for about a minute. Each one's output is kept apart and
# printed whole once it has ended (in the order above), so lines never interleave; the exit
# status is 1 when any of them failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

out=$(mktemp -d /tmp/oac-static-checks.XXXXXX)
trap 'rm -rf "$out"' EXIT
checks=(typecheck lint format:check)
pids=()
for check in "${checks[@]}"; do
  npm run --silent "$check" >"$out/${check/:/-}" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!checks[@]}"; do
  check=${checks[$i]}
  if wait "${pids[$i]}"; then
    echo "static checks: $check passed"
  else
    echo "static checks: $check FAILED:"
    status=1
  fi
  cat "$out/${check/:/-}"
done
exit "$status"
