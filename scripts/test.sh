#!/usr/bin/env bash
# The README's test command: sets up what the tests need (packages, npm deps, the executable,
# a real dockerd for the tests that need Docker), then runs `npm test`, the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
npm run build --silent
started_dockerd=
if ! docker info >/dev/null 2>&1; then
  bash scripts/dockerd.sh start
  started_dockerd=1
fi
stop_dockerd() { [ -z "$started_dockerd" ] || bash scripts/dockerd.sh stop; }
trap stop_dockerd EXIT
npm test
