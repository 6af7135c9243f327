#!/usr/bin/env bash
# The README's test command: sets up what the tests need (packages, npm deps, the executable,
# a real dockerd for the tests that need Docker), then runs `npm test`, the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each tier writes its figures to .test-timing/<tier>.jsonl (test/reporters/timing.mjs): start
# empty, so the report shows this run only.
rm -rf .test-timing

bash scripts/setup.sh
npm run build --silent
started_dockerd=
if ! docker info >/dev/null 2>&1; then
  bash scripts/dockerd.sh start
  started_dockerd=1
fi
stop_dockerd() { [ -z "$started_dockerd" ] || bash scripts/dockerd.sh stop; }
# The run ends with the timing report (issue #28): each tier's wall time and test count, the ten
# slowest test files. Printed after a failure too; it never changes the exit status.
finish() {
  local stopped=0
  stop_dockerd || stopped=$?
  [ ! -d .test-timing ] || node --import tsx scripts/timing-report.ts || true
  [ "$stopped" = 0 ] || exit "$stopped"
}
trap finish EXIT
npm test
