// The crash matrix where it is cheap (issue #28 item 2; RERUN-03, RERUN-04, UNI-06, HOST-05):
// root's half of an install (everything but what the node half makes, as in
// test/host/reconcile-root.test.ts) runs on a scratch --root tree, with real useradd --prefix and
// systemctl --root, in a child process that SIGKILLs itself just before or just after one journal
// write (OAC_NODE_TEST_KILL_AT=before:<label>|after:<label>, src/host/journal-points.ts). The points
// are every write of a traced clean run (OAC_NODE_TEST_JOURNAL_TRACE_FD), before and after each.
// After each kill:
//   - a rerun converges to the golden tree of a clean install (the journal compared by content,
//     less its timestamps and digest cache: every resource `owned`, none mistaken for adopted),
//     and its uninstall returns the tree to the initial one;
//   - an uninstall straight after the kill returns the tree to the initial one (run on a copy of
//     the killed tree: the same kill twice would leave the same tree).
// The uninstall gets the same: killed at each of its writes, a rerun leaves the initial tree.
// What only a real host shows (the node half, systemd and Docker for real) stays in
// test/e2e/helpers/crash-host.ts, which kills the rest of the full install's points; both take root's
// half's points from the same trace (`rootHalfPoints()`, test/helpers/crash-points.ts). Each test
// prints the points it covered.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { installRootHalf, names, programFor, uninstallRootHalf } from '../helpers/root-half.ts';
import { rootHalfChild, rootHalfPoints } from '../helpers/crash-points.ts';
import { makeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

// useradd's and gpasswd's backups and lock, and the installer's lock (kept in /run like dpkg's):
// no resource of ours (as in reconcile-root.test.ts).
const BACKUPS = /^etc\/([a-z]+-|\.pwd\.lock)$|^run\/oac-node(\/installer\.lock)?$/;
const JOURNAL = names.journal.slice(1);
/** Points run side by side, each on trees of its own: the time goes to child processes (the
 *  killed run, useradd, systemctl), so two cores run four at once. */
const CONCURRENCY = 4;

let work: string;
let initialRoot: string;
let installedRoot: string;
let program: string;
let points: { install: string[]; uninstall: string[] };
let initial: HostTree;
let clean: HostTree;
let copies = 0;

interface HostTree {
  tree: Record<string, string>;
  /** The journal without what differs per run, or null without one: its timestamps, and the
   *  digest cache (real paths with their inodes and times, issue #13). */
  journal: unknown;
}

/** The tree, with the journal compared by content less its per-run values. */
function stateOf(root: string): HostTree {
  const tree = treeOf(root, BACKUPS);
  const entry = tree[JOURNAL];
  if (entry !== undefined) tree[JOURNAL] = entry.split(' ').slice(0, 3).join(' ');
  const path = join(root, JOURNAL);
  if (!existsSync(path)) return { tree, journal: null };
  const {
    created_at: _c,
    updated_at: _u,
    digests: _d,
    ...journal
  } = JSON.parse(readFileSync(path, 'utf8'));
  return { tree, journal };
}

/** A copy of a tree (modes, owners and links kept), to kill or repair independently. */
function copyOf(root: string): string {
  copies += 1;
  const copy = join(work, `root-${copies}`);
  execFileSync('cp', ['-a', root, copy]);
  return copy;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'oac-crash-root-'));
  initialRoot = makeScratchRoot();
  program = programFor(initialRoot);
  initial = stateOf(initialRoot);
  installedRoot = copyOf(initialRoot);
  await installRootHalf(installedRoot, program);
  clean = stateOf(installedRoot);
  points = await rootHalfPoints();
});
after(() => {
  for (const dir of [work, initialRoot, program]) rmSync(dir, { recursive: true, force: true });
});

/** Both points of every write, each label once (the kill hook stops at its first write). */
function bothSides(labels: string[]): string[] {
  assert.equal(new Set(labels).size, labels.length, `a label written twice: ${labels.join(' ')}`);
  return labels.flatMap((label) => [`before:${label}`, `after:${label}`]);
}

async function killedAt(command: 'install' | 'uninstall', root: string, point: string) {
  const outcome = await rootHalfChild(command, root, program, { OAC_NODE_TEST_KILL_AT: point });
  assert.equal(outcome, 'killed', `${command} was not killed at ${point}`);
}

test(
  "RERUN-03 RERUN-04 HOST-05 UNI-06 root's half killed at every journal point on a --root tree: a rerun converges to the golden clean install, an uninstall to the initial tree",
  { concurrency: CONCURRENCY },
  async (t) => {
    const covered = bothSides(points.install);
    assert.ok(covered.length >= 16, `root's half writes its journal at least 8 times`);
    const each = async (point: string) => {
      const killed = copyOf(initialRoot);
      await killedAt('install', killed, point);
      const uninstalled = copyOf(killed);

      await installRootHalf(killed, program);
      assert.deepEqual(stateOf(killed), clean, `${point}: the rerun converged to a clean install`);
      await uninstallRootHalf(killed);
      assert.deepEqual(stateOf(killed), initial, `${point}: then rerun, uninstall`);

      await uninstallRootHalf(uninstalled);
      assert.deepEqual(stateOf(uninstalled), initial, `${point}: then uninstall`);
      for (const dir of [killed, uninstalled]) rmSync(dir, { recursive: true, force: true });
    };
    await Promise.all(covered.map((point) => t.test(point, () => each(point))));
    console.log(
      `crash matrix (host tier, --root): install killed at ${covered.length} journal points: ${covered.join(' ')}`,
    );
  },
);

test(
  'UNI-06 HOST-05 uninstall of a --root tree killed at every journal point: a rerun leaves the initial tree',
  { concurrency: CONCURRENCY },
  async (t) => {
    const covered = bothSides(points.uninstall);
    assert.ok(covered.length >= 8, 'the uninstall writes its journal at least 4 times');
    const each = async (point: string) => {
      const root = copyOf(installedRoot);
      await killedAt('uninstall', root, point);
      await uninstallRootHalf(root);
      assert.deepEqual(stateOf(root), initial, `${point}: then uninstall`);
      rmSync(root, { recursive: true, force: true });
    };
    await Promise.all(covered.map((point) => t.test(point, () => each(point))));
    console.log(
      `crash matrix (host tier, --root): uninstall killed at ${covered.length} journal points: ${covered.join(' ')}`,
    );
  },
);

test('the numeric kill point still works: after:N is the N-th write, the same point as its label', async () => {
  const n = points.install.indexOf('record:program') + 1;
  assert.ok(n > 0);
  const [byNumber, byLabel] = [copyOf(initialRoot), copyOf(initialRoot)];
  await killedAt('install', byNumber, `after:${n}`);
  await killedAt('install', byLabel, 'after:record:program');
  assert.deepEqual(stateOf(byNumber), stateOf(byLabel));
  const journal = stateOf(byNumber).journal as { resources: Record<string, { ownership: string }> };
  assert.equal(journal.resources.program?.ownership, 'owned');
  assert.equal(journal.resources.unit, undefined, 'killed before the unit');
});
