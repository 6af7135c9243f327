// Issue #23: the node half under --root stays inside the root. `install --root` of a microsandbox
// node (the provider whose node files the node half's digest cache describes, issue #13) with the
// built executable on a scratch tree, against the reference Core serving a real release. The
// node half once built its paths from `layout(id)` on the real `/`, so its digest cache read and
// wrote the host's own `/var/lib/oac-node/.oac/nodes/<id>/digests.json`. Here the installer runs
// in a private mount namespace whose /var/lib is a scratch directory holding such a host's node
// state (a digest cache, a file it names): what "the host's /var/lib" would see of the run is
// then observable, and this machine's own /var/lib is never touched.
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TestCore } from '../helpers/core.ts';
import {
  microsandboxRoot,
  runWithVarLib,
  type RootRun,
  type RunEvent,
} from '../helpers/microsandbox-root.ts';
import { issueToken } from '../helpers/node.ts';
import { NODE_UID } from '../helpers/prepare.ts';
import { treeOf } from '../helpers/scratch-root.ts';

const ID = '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e23';
/** The node state directory, under /var/lib and under the root. */
const IN_VAR_LIB = `oac-node/.oac/nodes/${ID}`;
const STATE = `var/lib/${IN_VAR_LIB}`;
/** An access time long past: any read of the file moves it (relatime, the default). */
const LONG_AGO = new Date('2001-01-01T00:00:00Z');

let scratch: string;
let core: TestCore;
let root: string;
/** What the installer sees as this host's /var/lib (bound there in its mount namespace). */
let hostVarLib: string;
/** Whether a read moves a file's access time here (not on a noatime mount). */
let atimeMoves: boolean;

before(async () => {
  ({ scratch, core, root } = await microsandboxRoot('/tmp/oac-nhr-', ID));

  // The host's own node state of the same installation ID, as a real install leaves it: the
  // node account's tree (its files, its digest cache naming one of them).
  hostVarLib = join(scratch, 'host-var-lib');
  mkdirSync(hostVarLib, { mode: 0o755 });
  let dir = hostVarLib;
  for (const name of [...IN_VAR_LIB.split('/'), 'files']) {
    dir = join(dir, name);
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, NODE_UID, NODE_UID);
  }
  const planted = join(hostVarLib, IN_VAR_LIB, 'files/planted');
  writeFileSync(planted, 'a node file of the host itself');
  const stamp = {
    ...{ dev: '1', ino: '1', size: '30', mtime_ns: '1', ctime_ns: '1' },
    sha256: 'ab'.repeat(32),
  };
  const hostDigests = join(hostVarLib, IN_VAR_LIB, 'digests.json');
  writeFileSync(hostDigests, `${JSON.stringify({ [`/${STATE}/files/planted`]: stamp })}\n`);
  for (const path of [planted, hostDigests]) {
    chownSync(path, NODE_UID, NODE_UID);
    chmodSync(path, 0o600);
    utimesSync(path, LONG_AGO, LONG_AGO);
  }
  const probe = join(scratch, 'atime-probe');
  writeFileSync(probe, 'read me');
  utimesSync(probe, LONG_AGO, LONG_AGO);
  readFileSync(probe);
  atimeMoves = statSync(probe).atime > LONG_AGO;
});
after(async () => {
  await core?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

/** `install --root` as the line runs it (token on stdin), in a mount namespace of its own whose
 *  /var/lib is `hostVarLib`. It prepares the node, then waits for Core to see it ready, which
 *  no running node here ever is: it stops at that last step (--timeout 1). */
function installUnderRoot(token: string | null): Promise<RootRun> {
  const args = [
    ...['install', '--core-url', core.core_url, '--installation-id', ID, '--name', 'node-1'],
    ...['--root', root, '--timeout', '1', '--json'],
  ];
  return runWithVarLib(hostVarLib, args, token === null ? '' : `${token}\n`);
}

/** The code of the run's final error event (none: undefined). */
const endOf = (r: { events: RunEvent[] }) => r.events.findLast((e) => e.type === 'error')?.code;

/** What the run did to the host's /var/lib: the access times of its files (read first, then
 *  set back: treeOf reads them too), and its tree. */
function hostView() {
  const files = ['files/planted', 'digests.json'].map((f) => join(hostVarLib, IN_VAR_LIB, f));
  const read = files.map((f) => statSync(f).atime);
  const tree = treeOf(hostVarLib);
  for (const f of files) utimesSync(f, LONG_AGO, statSync(f).mtime);
  return { read, tree };
}

test("HOST-08 issue #23: the node half under --root keeps its digest cache inside the root, never the host's /var/lib/oac-node", async (t) => {
  // On a noatime mount the reads go unseen (the writes are still checked).
  if (!atimeMoves) t.diagnostic('reads are not observable here: the scratch mount is noatime');
  const untouched = hostView();
  assert.deepEqual(untouched.read, [LONG_AGO, LONG_AGO]);
  const digests = join(root, STATE, 'digests.json');
  const shown = (r: { status: number | null; stdout: string; stderr: string }) =>
    `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

  const first = await installUnderRoot(await issueToken(core));
  // Everything is done but the wait for a node that never runs here.
  assert.equal(endOf(first), 'never_connected', shown(first));
  const done = first.events.filter((e) => e.type === 'step-done').map((e) => e.step);
  for (const step of ['microsandbox-runtime', 'microsandbox-firmware', 'microsandbox-helper'])
    assert.ok(
      done.some((s) => s?.endsWith(step)),
      `${step} prepared by the node half\n${shown(first)}`,
    );

  assert.deepEqual(hostView(), untouched, "the host's node state was neither read nor written");
  assert.ok(existsSync(digests), `the digest cache is in the root's node state\n${shown(first)}`);
  assert.equal(statSync(digests).uid, NODE_UID, "the node account's own file");
  const described = Object.keys(JSON.parse(readFileSync(digests, 'utf8')) as object);
  assert.equal(described.length, 3, `the three microsandbox files: ${described.join(', ')}`);
  for (const path of described)
    assert.ok(path.startsWith(`${root}/${STATE}/files/`), `${path} is a file in the root`);

  // The rerun reads the cache the first run wrote: the one in the root.
  utimesSync(digests, LONG_AGO, statSync(digests).mtime);
  const rerun = await installUnderRoot(null);
  assert.equal(endOf(rerun), 'never_connected', shown(rerun));
  // Root asked the node half for its plan (a dry run of it, which reads the cache): nothing.
  const node = rerun.events.find((e) => e.type === 'step-done' && e.step === 'node');
  assert.equal(node?.result?.outcome, 'unchanged', `RERUN-01\n${shown(rerun)}`);
  if (atimeMoves)
    assert.ok(statSync(digests).atime > LONG_AGO, "the rerun read the root's digest cache");
  assert.deepEqual(hostView(), untouched, "the rerun neither read nor wrote the host's");
});
