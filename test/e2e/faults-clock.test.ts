// REL-01 (issue #26 item 1) in a real host: the host's clock moved between two runs. The kernel's
// clock is this machine's (a container has no clock of its own, and this machine's is never
// set), so the host's wall clock is moved for every program it starts from then on: a small
// library (helpers/clock-shift.c, built here by gcc, bound in read-only) in the host's
// /etc/ld.so.preload, its offset in /etc/oac-e2e-clock. The installer, its node half (another
// user), systemctl and the node service all read the moved clock; the monotonic clock and the
// files' times stay the kernel's, as after `date -s`. What must hold:
//   - the enrollment token is Core's to judge: a host a day ahead installs with a token Core
//     holds valid (the installer never decides on its own clock that it expired);
//   - the digest index (src/host/digest-index.ts) never takes a changed file for unchanged: the
//     program, changed in place with its size and modification time kept (only its ctime
//     moves, which no one but the kernel sets), is found changed and put back, with the clock a
//     day ahead and then an hour behind the real one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { withHostAndCore } from './harness/core-pair.ts';
import {
  assertConvergedThenUninstall,
  assertOk,
  faultRun,
  type FaultRun,
} from './harness/faults.ts';
import { jsonEvents } from './harness/events.ts';
import type { E2eHost } from './harness/host.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
const coreArgs = async () => ['--release-dir', await release.dir()];
const LIBRARY = '/opt/oac-e2e-clock/clock-shift.so';

/** helpers/clock-shift.c, built into a scratch directory for the host to bind. */
function buildClockShift(): { source: string; target: string } {
  const dir = mkdtempSync(join(tmpdir(), 'oac-e2e-clock-'));
  // The bind keeps the mode: 0700 would keep ld.so from preloading it for oac-node.
  chmodSync(dir, 0o755);
  after(() => rmSync(dir, { recursive: true, force: true }));
  const source = fileURLToPath(new URL('helpers/clock-shift.c', import.meta.url));
  execFileSync('gcc', [
    '-shared',
    '-fPIC',
    '-O2',
    '-o',
    join(dir, 'clock-shift.so'),
    source,
    '-ldl',
  ]);
  return { source: dir, target: dirname(LIBRARY) };
}

/** Sets the host's wall clock `seconds` away from the real one for every program it starts
 *  from now on; checks that `date` says so, run by root and, once the account exists, by
 *  oac-node (the node half and the service run as it). */
async function moveClock(host: E2eHost, seconds: number): Promise<void> {
  await host.shOk(`echo ${seconds} > /etc/oac-e2e-clock && echo ${LIBRARY} > /etc/ld.so.preload`);
  await assertClock(host, seconds, 'root');
  if ((await host.exec(['id', 'oac-node'])).status === 0)
    await assertClock(host, seconds, 'oac-node');
}

async function assertClock(host: E2eHost, seconds: number, user: string): Promise<void> {
  const r = await host.exec(['date', '+%s'], { user });
  assert.equal(r.stderr, '', `${user}: the library is preloaded`);
  const off = Number(r.stdout) - Date.now() / 1000;
  assert.ok(Math.abs(off - seconds) < 120, `${user}: the clock moved ${seconds} s, not ${off}`);
}

/** The journal's last write, as the installer's clock said it: `seconds` from now. */
async function assertJournalStamped(run: FaultRun, seconds: number, why: string): Promise<void> {
  const { updated_at } = JSON.parse((await run.journal()) ?? '{}') as { updated_at?: string };
  const off = (Date.parse(updated_at ?? '') - Date.now()) / 1000;
  assert.ok(Math.abs(off - seconds) < 600, `${why}: the installer's clock: ${updated_at}`);
}
const realClock = (host: E2eHost) => host.shOk('rm -f /etc/ld.so.preload /etc/oac-e2e-clock');

/** Changes one byte of `path` in place, its size and modification time kept. */
async function changeInPlace(host: E2eHost, path: string): Promise<void> {
  await host.shOk(
    `m=$(stat -c %.9Y ${path}) && b=$(dd if=${path} bs=1 skip=4096 count=1 2>/dev/null | od -An -tu1 | tr -d ' ') && ` +
      `printf "\\\\$(printf %o $(( (b + 1) % 256 )))" | dd of=${path} bs=1 seek=4096 conv=notrunc 2>/dev/null && touch -d "@$m" ${path}`,
  );
}

/** The program changed in place while the node is stopped (a running program cannot be
 *  written); the rerun (--json) must rewrite it: its step not unchanged, its bytes back. */
async function programChangedIsFound(host: E2eHost, run: FaultRun, why: string): Promise<void> {
  const { program: programFile, unitName } = layout(parseInstallationId(run.issued.installationId));
  const journal = JSON.parse((await run.journal()) ?? '{}') as {
    digests?: Record<string, unknown>;
  };
  assert.ok(journal.digests?.[programFile], `${why}: the program's digest is kept`);
  const sum = () => host.shOk(`sha256sum ${programFile} | cut -d' ' -f1`);
  const before = await sum();
  await host.shOk(`systemctl stop ${unitName}`);
  const stamp = () => host.shOk(`stat -c '%s %.9Y %i' ${programFile}`);
  const kept = await stamp();
  await changeInPlace(host, programFile);
  assert.equal(await stamp(), kept, `${why}: size, mtime and inode as before`);
  assert.notEqual(await sum(), before, `${why}: the program changed`);

  const rerun = await run.install([], ['--json']);
  assertOk(rerun, `${why}: the rerun`);
  const program = jsonEvents(rerun.stdout).find(
    (e) => e.type === 'step-done' && e.step === 'program',
  );
  assert.ok(
    program !== undefined && program.result?.outcome !== 'unchanged',
    `${why}: ${rerun.stdout}`,
  );
  assert.equal(await sum(), before, `${why}: the program put back`);
}

test("REL-01 the clock a day ahead, then an hour behind: the token is Core's to judge, and a program changed in place (size and mtime kept) is found and put back each time; the install converges and uninstall returns the host to its snapshot", async () => {
  await withHostAndCore(coreArgs, { binds: [buildClockShift()] }, async (host, core) => {
    const pristine = await host.snapshot();
    const run = await faultRun(host, core);

    await moveClock(host, 86_400);
    const line = await run.line();
    assertOk(line, 'the line a day ahead: the token is valid on Core');
    assert.match(line.stdout, /^Node \S+ is connected and ready\.$/m);
    await assertClock(host, 86_400, 'oac-node');
    await programChangedIsFound(host, run, 'a day ahead');
    await assertJournalStamped(run, 86_400, 'a day ahead');

    await moveClock(host, -3_600);
    await programChangedIsFound(host, run, 'an hour behind');
    await assertJournalStamped(run, -3_600, 'an hour behind');

    await realClock(host);
    await assertConvergedThenUninstall(host, core, run, pristine);
  });
});
