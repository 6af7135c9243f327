// REL-01 UNI-03 at the host tier: an operator who masked the node's unit (`systemctl mask`, a link
// to /dev/null in the unit file's place) after the install said "never start this"; uninstall
// removes everything else of the installation but leaves that link, and says so; a rerun changes
// nothing. Root's half installed by the real drivers on a scratch --root tree
// (test/helpers/root-half.ts), the built executable's uninstall run against it. The refusals of
// an install over a mask (in /etc, or until the next boot in /run) are in refusals.test.ts; a
// runtime mask once the unit is installed masks nothing, and is left alone (below).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { requireExecutable } from '../helpers/executable.ts';
import { ID, installRootHalf, names, programFor, rootHalf } from '../helpers/root-half.ts';
import { Host } from '../../src/host/host.ts';
import { unitDriver } from '../../src/resources/drivers/unit.ts';
import { makeScratchRoot, removeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

/** useradd's backups and lock, and the installer's lock: no resource of ours. */
const NOT_OURS = /^etc\/([a-z]+-|\.pwd\.lock)$|^run\/oac-node(\/installer\.lock)?$/;

let root: string;
let pristine: Record<string, string>;

beforeEach(async () => {
  root = makeScratchRoot();
  pristine = treeOf(root, NOT_OURS);
  await installRootHalf(root, programFor(root));
});
afterEach(() => {
  removeScratchRoot(root);
});

function uninstall() {
  const exe = requireExecutable();
  const args = ['uninstall', '--installation-id', ID, '--force', '--root', root];
  return spawnSync(exe, args, { encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
}

test("REL-01 UNI-03 uninstall leaves the operator's mask of the unit (a link to /dev/null) and says so; the rest is removed, and a rerun changes nothing", () => {
  const unit = join(root, names.unitPath);
  rmSync(unit);
  // What an operator gets by removing the unit file and then `systemctl mask` (which refuses
  // while a real file is there): a link to /dev/null, the enable link left pointing at it.
  symlinkSync('/dev/null', unit);
  const removed = uninstall();
  assert.equal(removed.status, 0, `${removed.stdout}${removed.stderr}`);
  assert.match(
    removed.stdout,
    /^ {2}kept +\S+\.service \(masked by the operator: a link to \/dev\/null, not the unit\)$/m,
  );
  assert.equal(readlinkSync(unit), '/dev/null', 'the mask is still there');
  assert.match(
    removed.stdout,
    /^ {2}removed +\S+\.service stopped, its enable link removed \(masked\)$/m,
  );
  const mask = names.unitPath.slice(1);
  const left = treeOf(root, NOT_OURS);
  const expected = { ...pristine, [mask]: left[mask] ?? 'missing' };
  assert.deepEqual(left, expected, 'everything else is as before the install');

  const again = uninstall();
  assert.equal(again.status, 0, `${again.stdout}${again.stderr}`);
  assert.deepEqual(treeOf(root, NOT_OURS), left, 'the rerun changed nothing');
});

test("REL-01 a runtime mask of an installed node's unit masks nothing (systemd reads /etc/systemd/system first), so the unit's plan stays unchanged, not refused", async () => {
  const runtime = join(root, 'run/systemd/system');
  mkdirSync(runtime, { recursive: true });
  symlinkSync('/dev/null', join(runtime, names.unitName));
  const unit = rootHalf(programFor(root)).find((r) => r.kind === 'unit');
  assert.ok(unit?.kind === 'unit');
  const ctx = { host: new Host(root), layout: names, emit: () => undefined };
  const actual = await unitDriver.probe(unit, ctx);
  assert.equal(actual.maskedAtRuntime, join('/', 'run/systemd/system', names.unitName), 'seen');
  assert.equal(unitDriver.diff(unit, actual, new Map()).kind, 'unchanged');
});

test("REL-01 status of a node whose unit the operator masked: the unit's problem says how to unmask it, the service's says it stays off for that, and neither sends the operator to a rerun (it would be refused)", () => {
  const unit = join(root, names.unitPath);
  rmSync(unit);
  symlinkSync('/dev/null', unit);
  const exe = requireExecutable();
  const args = ['status', '--installation-id', ID, '--root', root];
  const r = spawnSync(exe, args, {
    encoding: 'utf8',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  assert.equal(r.status, 2, `drift: ${r.stdout}${r.stderr}`);
  const problems = r.stdout.split('\n').filter((l) => l.startsWith('  - '));
  const of = (kind: string) => problems.find((l) => l.startsWith(`  - ${kind} `)) ?? '';
  assert.match(
    of('unit'),
    /is masked \(.*links to \/dev\/null\).* run systemctl unmask \S+\.service, then/,
  );
  assert.match(of('service'), /stays off: its unit is masked by the operator/);
  for (const line of [of('unit'), of('service')])
    assert.doesNotMatch(line, /rerun the install command/);
});
