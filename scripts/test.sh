#!/usr/bin/env bash
# The README's test command: sets up what the tests need (packages, npm deps, the executable,
# a real dockerd for the tests that need Docker), then runs `npm test`, the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each tier writes its figures to .test-timing/<tier>.jsonl (test/reporters/timing.mjs): start
# empty, so the report shows this run only.
rm -rf .test-timing

bash scripts/setup.sh

rootfs_pid=
rootfs_log=
started_dockerd=
# The run ends with the timing report (issue #28): each tier's wall time and test count, the ten
# slowest test files. Printed after a failure too; it never changes the exit status.
finish() {
  local stopped=0
  # Only while it still runs: a finished build's group ID could belong to someone else by now.
  if [ -n "$rootfs_pid" ] && jobs -pr | grep -qx "$rootfs_pid"; then
    kill -- -"$rootfs_pid" 2>/dev/null || true
  fi
  if [ -n "$rootfs_log" ]; then
    # Said, not hidden: the e2e tier built it again, but why the first build failed may matter.
    if grep -q '^rootfs build exit [1-9]' "$rootfs_log"; then
      echo 'test.sh: the background rootfs build failed (the e2e tier tried again); its last lines:'
      tail -n 20 "$rootfs_log"
    fi
    rm -f "$rootfs_log"
  fi
  [ -z "$started_dockerd" ] || bash scripts/dockerd.sh stop || stopped=$?
  [ ! -d .test-timing ] || node --import tsx scripts/timing-report.ts || true
  [ "$stopped" = 0 ] || exit "$stopped"
}
trap finish EXIT

# The e2e hosts' root file systems (debootstrap: Debian 12 for the whole tier, about 2 minutes on
# a fresh machine, then Debian 11 and 13 for the distribution matrix, about 3 more) are built in
# the background while the executable is built and the unit and host tiers run; the e2e tier's
# first host of each release waits on the build's lock and finds it done
# (scripts/e2e-rootfs.sh build-all, one release after another, Debian 12 first). In its
# own session, so that finish() stops it with everything it started; a build that failed is
# tried again by the e2e tier, which reports it.
rootfs_log=$(mktemp /tmp/oac-rootfs-build.XXXXXX)
setsid bash -c 'bash scripts/e2e-rootfs.sh build-all; echo "rootfs build exit $?"' >"$rootfs_log" 2>&1 &
rootfs_pid=$!

npm run build --silent
# The test build (issue #37): the same program with the crash matrix's hooks, which the release
# lacks (src/host/journal-points.ts); the e2e files that kill an install use it.
npm run build --silent -- --test-hooks --out dist-test
if ! docker info >/dev/null 2>&1; then
  bash scripts/dockerd.sh start
  started_dockerd=1
fi
npm test
