// REL-01 (issue #26 item 1) at the host tier: a file system that refuses root's writes. A real
// full tmpfs, and a real read-only bind mount of /etc, in a private mount namespace (unshare -m:
// this machine's own mounts never change), under an installation's scratch --root tree (root's
// half installed by the real drivers, test/helpers/root-half.ts). Each run of the built
// executable ends in one line naming the path and a hint, exit 1, never a stack; the journal is
// whole (exactly the one before: its first write failed); and once the cause is gone, the rerun
// converges: the tree is as it was before the install. Uninstall is the run: its first change is
// a journal write, as an install's is, through the same Host methods.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { requireExecutable } from '../helpers/executable.ts';
import { ID, installRootHalf, names, programFor } from '../helpers/root-half.ts';
import { makeScratchRoot, removeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

/** useradd's backups and lock, and the installer's lock: no resource of ours. */
const NOT_OURS = /^etc\/([a-z]+-|\.pwd\.lock)$|^run\/oac-node(\/installer\.lock)?$/;
const JOURNAL = names.journal.slice(1);
const MARK = '@@journal-after';

let root: string;
let pristine: Record<string, string>;
let installed: Record<string, string>;
let journal: string;

beforeEach(async () => {
  root = makeScratchRoot();
  pristine = treeOf(root, NOT_OURS);
  await installRootHalf(root, programFor(root));
  installed = treeOf(root, NOT_OURS);
  journal = readFileSync(join(root, JOURNAL), 'utf8');
});
afterEach(() => {
  removeScratchRoot(root);
});

const uninstall = () => [requireExecutable(), 'uninstall', '--installation-id', ID, '--force'];

/** `setup` (sh, $R the tree) in a private mount namespace, then the uninstall there; then
 *  `after` (sh), whose output follows MARK. */
function inNamespace(setup: string, after: string) {
  const script = `set -e; R=$1; shift; ${setup}; set +e; "$@" --root "$R"; echo "status=$?"; echo ${MARK}; ${after}`;
  const run = spawnSync(
    'unshare',
    ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', root, ...uninstall()],
    { encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } },
  );
  const [said = '', afterwards = ''] = run.stdout.split(`${MARK}\n`);
  return { stderr: run.stderr, said, afterwards };
}

function assertConverges(): void {
  const rerun = spawnSync(uninstall()[0] as string, [...uninstall().slice(1), '--root', root], {
    encoding: 'utf8',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  assert.equal(rerun.status, 0, `${rerun.stdout}${rerun.stderr}`);
  assert.deepEqual(treeOf(root, NOT_OURS), pristine, 'the rerun converged: as before the install');
}

test('REL-01 /etc/oac-node on a full file system: one line naming the journal and a hint, exit 1, the journal whole; the rerun once there is room converges', () => {
  // A copy of the records on a small tmpfs, filled up, mounted over the records' directory.
  const run = inNamespace(
    [
      'T=$(mktemp -d)',
      'mount -t tmpfs -o size=256k oac-full "$T"',
      `cp -a "$R/etc/oac-node/." "$T/"`,
      'dd if=/dev/zero of="$T/filler" bs=4k 2>/dev/null || true',
      'mount --bind "$T" "$R/etc/oac-node"',
    ].join('; '),
    `cat "$R/${JOURNAL}"`,
  );
  assert.equal(
    run.stderr,
    `oac-node: The file system of /${JOURNAL} is full\n` +
      '  hint: Free space there (df -h /etc/oac-node shows it), then run the command again: it continues where this run stopped.\n',
  );
  assert.match(run.said, /^status=1$/m);
  assert.equal(run.afterwards, journal, 'the journal on the full file system is whole');
  // The service was disabled before that write (a step acts, then forgets): the journal still
  // names it, and the rerun finds it disabled already.
  assertConverges();
});

test('REL-01 /etc read-only: one line naming the path and a hint, exit 1, nothing changed; the rerun once it is writable converges', () => {
  const run = inNamespace(
    'mount --bind "$R/etc" "$R/etc"; mount -o remount,bind,ro "$R/etc"',
    `cat "$R/${JOURNAL}"`,
  );
  assert.equal(
    run.stderr,
    `oac-node: /${JOURNAL} is on a read-only file system\n` +
      '  hint: Make /etc/oac-node writable for root again (mount -o remount,rw), then run the command again: it continues where this run stopped.\n',
  );
  assert.match(run.said, /^status=1$/m);
  assert.equal(run.afterwards, journal);
  assert.deepEqual(treeOf(root, NOT_OURS), installed);
  assertConverges();
});
