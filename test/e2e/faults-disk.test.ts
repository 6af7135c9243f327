// REL-01 (issue #26 item 1) in a real host: a file system that refuses root's writes. Each fault is
// made inside the host and nowhere else: /etc read-only by a read-only bind mount; the records'
// directory /etc/oac-node full by a small tmpfs mounted over it (empty, or holding a copy of the
// records) and filled; the host's own disk (its overlay's writable layer, a tmpfs of its own:
// bootHost upperSize) filled by a file of the test's while the Runtime download runs (Core
// drips it; the preflight's free-space check passes, as it does on a host whose disk something
// else fills meanwhile). This machine's disk is never filled. One install, one fault after
// another, each a little further on:
//   1. /etc read-only: the line stops at its first write there, and nothing changed;
//   2. /etc/oac-node full at the first journal write: no journal, nothing torn;
//   3. /etc/oac-node full at a later journal write (an install stopped once its program was
//      recorded, then rerun): the journal is the one before, byte for byte;
//   4. the disk full during the Runtime download: the part file is kept, and the rerun once
//      there is room resumes it.
// Each fault is one line naming the path and a hint; the run once the cause is cleared goes on;
// the last converges, and uninstall returns the host to its snapshot before the install.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { withHostAndCore } from './harness/core-pair.ts';
import {
  assertConvergedThenUninstall,
  assertJournalWhole,
  assertOk,
  assertOneLine,
  faultRun,
} from './harness/faults.ts';
import type { E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { waitInHost } from './harness/wait.ts';
import { testRelease } from './helpers/release.ts';

/** A Runtime archive of 16 MiB (incompressible), dripped at 16 MiB a minute: a minute to
 *  download, time enough to fill the disk while it runs (the run fails at once then). */
const PADDING = 16 * 1024 * 1024;
const DRIP = 16 * 1024 * 1024;
const release = testRelease({ runtimePaddingBytes: PADDING, runtimeGzipLevel: 1, testHooks: true });
const coreArgs = async () => ['--release-dir', await release.dir()];
/** Room for the kept installer, the program (88 MB each), the Runtime archive and the boot. */
const DISK = '600m';
const FILLER = '/root/oac-e2e-filler';
const RECORDS = '/etc/oac-node';
const SPARE = '/run/oac-e2e-records';
/** The journal writes of an install (src/host/journal-points.ts): where a run is stopped. */
const AFTER_PROGRAM = 'after:record:program';
const BEFORE_DOWNLOAD = 'after:intend:directory:.oac+directory:.oac/nodes+state+network';

const FULL = /^ {2}hint: Free space there \(df -h \S+ shows it\), then run the command again/;

/** The Runtime archive's file name, as the release's manifest names it. */
async function runtimeArchive(): Promise<string> {
  const manifest = JSON.parse(readFileSync(join(await release.dir(), 'manifest.json'), 'utf8')) as {
    files: Array<{ kind: string; name: string }>;
  };
  const image = manifest.files.find((f) => f.kind === 'runtime-image');
  assert.ok(image, 'the release has a Runtime image');
  return image.name;
}

/** Fills the host's disk but for `leave` bytes, with one file of the test's. */
async function fill(host: E2eHost, leave: number): Promise<void> {
  await host.shOk(
    `avail=$(df --output=avail -B1 / | tail -n 1); fallocate -l $((avail - ${leave})) ${FILLER}`,
  );
}
const clear = (host: E2eHost) => host.shOk(`rm -f ${FILLER}`);

/** /etc/oac-node on a full tmpfs of its own: empty, or (`copy`) holding what it held. */
async function fullRecords(host: E2eHost, copy: boolean): Promise<void> {
  await host.shOk(
    [
      `mkdir -m 0700 -p ${RECORDS} ${SPARE}`,
      `mount -t tmpfs -o size=64k,mode=0700 oac-e2e-full ${SPARE}`,
      copy ? `cp -a ${RECORDS}/. ${SPARE}/` : 'true',
      `{ dd if=/dev/zero of=${SPARE}/.filler bs=4k 2>/dev/null || true; }`,
      `mount --bind ${SPARE} ${RECORDS}`,
    ].join(' && '),
  );
}
/** Back to the records' own directory (`remove`: the one the test made for its mount). */
const roomyRecords = (host: E2eHost, remove: boolean) =>
  host.shOk(
    `umount ${RECORDS} && umount ${SPARE} && rmdir ${SPARE}` +
      (remove ? ` && rmdir ${RECORDS}` : ''),
  );

test('REL-01 a read-only /etc, then /etc/oac-node full at the first and at a later journal write, then the disk full during the Runtime download: each one line naming the path and a hint, the journal whole, the download resumed once there is room; the install converges and uninstall returns the host to its snapshot', async () => {
  await withHostAndCore(coreArgs, { upperSize: DISK }, async (host, core) => {
    const pristine = await host.snapshot();
    const run = await faultRun(host, core);

    // 1. /etc read-only: the line downloads and keeps its installer (under /root), which stops
    //    at its first write to /etc, having changed nothing.
    await host.shOk('mount --bind /etc /etc && mount -o remount,bind,ro /etc');
    const readOnly = await run.line();
    await host.shOk('umount /etc');
    assertOneLine(
      readOnly,
      /^oac-node: \/etc\/\S* is on a read-only file system$/,
      /Make \/etc\S* writable for root again \(mount -o remount,rw\)/,
      '/etc read-only',
    );
    assert.deepEqual(diffSnapshots(pristine, await host.snapshot()), [], 'nothing changed');

    // 2. /etc/oac-node full at the first journal write.
    await fullRecords(host, false);
    const first = await run.install();
    await roomyRecords(host, true);
    assertOneLine(
      first,
      /^oac-node: The file system of \/etc\/oac-node\/\S+ is full$/,
      FULL,
      'full at the first journal write',
    );
    assert.deepEqual(diffSnapshots(pristine, await host.snapshot()), [], 'no journal, no change');

    // 3. /etc/oac-node full at a later journal write: an install stopped once its program is
    //    recorded, its rerun with the records on a full file system.
    const stopped = await run.install([`OAC_NODE_TEST_KILL_AT=${AFTER_PROGRAM}`]);
    assert.notEqual(stopped.status, 0, 'killed after the program was recorded');
    const before = await run.journal();
    assert.ok(before !== null, 'the stopped install left its journal');
    await fullRecords(host, true);
    const later = await run.install();
    const during = await run.journal();
    await roomyRecords(host, false);
    assertOneLine(
      later,
      /^oac-node: The file system of \/etc\/oac-node\/\S+ is full$/,
      FULL,
      'full at a later journal write',
    );
    assert.equal(during, before, 'the journal is the one before, whole');

    // 4. The disk full during the Runtime download: an install stopped just before the node
    //    half downloads; its rerun, with 40 MiB free (the preflight asks for the archive's 16 and
    //    a margin), meets a full disk once the download has begun.
    const beforeDownload = await run.install([`OAC_NODE_TEST_KILL_AT=${BEFORE_DOWNLOAD}`]);
    assert.notEqual(beforeDownload.status, 0, 'killed before the download');
    const image = await runtimeArchive();
    const drip = { kind: 'drip', bytes_per_minute: DRIP };
    const armed = await core.coreApi('PUT', '/__fixture/faults', {
      target: image,
      fault: drip,
      count: 1,
    });
    assert.equal(armed.status, 204);
    await fill(host, 40 * 1024 * 1024);
    const downloading = run.install();
    await waitInHost(
      host,
      'a part of the Runtime archive on disk',
      `[ -n "$(find /var/lib/oac-node -name '*.part' -size +1024k)" ]`,
      { timeoutMs: 45_000, intervalMs: 50 },
    );
    // The download goes on writing meanwhile: all but 1 MiB at once, then the rest, to the last
    // block, whatever the download took in between (a fallocate of all of it could fail).
    await host.shOk(
      `fallocate -l $(( $(df --output=avail -B1 / | tail -n 1) - 1048576 )) ${FILLER}.rest && { cat /dev/zero >> ${FILLER}.rest 2>/dev/null || true; }`,
    );
    const download = await downloading;
    const part = await host.shOk("find /var/lib/oac-node -name '*.part' -type f -printf '%s %p'");
    await host.shOk(`rm -f ${FILLER}.rest`);
    await clear(host);
    assertOneLine(
      download,
      /^oac-node: The file system of \/var\/lib\/oac-node\/\S+ is full$/,
      FULL,
      'full during the download',
    );
    assertJournalWhole(await run.journal(), 'full during the download');
    const [kept = '0'] = part.split(' ');
    assert.ok(Number(kept) > 0, `the part file is kept: ${part}`);

    const resumed = await run.install();
    assertOk(resumed, 'the rerun once there is room');
    assert.match(resumed.stdout, /resum/i, 'the download resumed from the part');
    await assertConvergedThenUninstall(host, core, run, pristine);
  });
});
