// DECL-05 at the host tier (issue #23): the saved plan's file is read only as root's alone and
// checked against its schema, and `apply`'s comparison names what moved. The end-to-end path
// (plan on a real host, the host moves, apply refuses, a new plan applies) is
// test/e2e/saved-plan.test.ts.
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, test } from 'node:test';
import { readPlanFile, writePlanFile } from '../../src/installation/plan-file.ts';
import { checkSavedPlan, planDigest, type SavedPlan } from '../../src/installation/saved-plan.ts';
import { OacError } from '../../src/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'oac-plan-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const plan: SavedPlan = {
  format: 1,
  command: 'install',
  created_at: '2026-12-02T00:00:00.000Z',
  options: {
    core_url: 'https://core.example',
    installation_id: 'inst-1',
    name: 'node-1',
    core_pin: null,
    checkpoint_root: null,
  },
  provider: 'docker',
  steps: [{ step: 'account:oac-node', action: { kind: 'create', detail: 'create user' } }],
  changed: true,
  fingerprint: { journal: 'a'.repeat(64), 'resource:account:oac-node': 'b'.repeat(64) },
  events: [
    { type: 'step-plan', step: 'account:oac-node', action: { kind: 'create', detail: 'x' } },
  ],
};

const refusedAs = (problem: RegExp) => (e: unknown) =>
  e instanceof OacError && e.code === 'plan_file_invalid' && problem.test(e.message);

test('DECL-05 SEC-02 a saved plan is written 0600 and read back equal; a file anyone else could have written is not read', async () => {
  const path = join(dir, 'node.plan');
  await writePlanFile(path, plan);
  assert.deepEqual(await readPlanFile(path), plan);

  chmodSync(path, 0o620);
  await assert.rejects(readPlanFile(path), refusedAs(/is not root's alone/));
  chmodSync(path, 0o600);
  chownSync(path, 65534, 65534);
  await assert.rejects(readPlanFile(path), refusedAs(/is not root's alone/));
  chownSync(path, 0, 0);

  const link = join(dir, 'link.plan');
  symlinkSync(path, link);
  await assert.rejects(readPlanFile(link), refusedAs(/is a symbolic link/));
  await assert.rejects(readPlanFile(dir), refusedAs(/is not a regular file/));
  await assert.rejects(readPlanFile(join(dir, 'none.plan')), refusedAs(/does not exist/));

  const odd = join(dir, 'odd.plan');
  writeFileSync(odd, JSON.stringify({ ...plan, format: 2 }), { mode: 0o600 });
  await assert.rejects(readPlanFile(odd), refusedAs(/is not a plan of this installer: /));
  writeFileSync(odd, JSON.stringify({ ...plan, token: 'a secret has no place here' }), {
    mode: 0o600,
  });
  await assert.rejects(readPlanFile(odd), refusedAs(/is not a plan of this installer/));
  writeFileSync(odd, 'not json', { mode: 0o600 });
  await assert.rejects(readPlanFile(odd), refusedAs(/not JSON/));
});

test('DECL-05 SEC-02 a plan in a directory someone else can change is neither written nor read; a sticky one is fine', async () => {
  // Whoever can change the directory can swap the reviewed plan for another of root's between
  // review and apply (an uninstall plan for an install plan, say).
  for (const [why, prepare] of [
    ['a directory of another owner', (d: string) => chownSync(d, 65534, 65534)],
    ['a directory writable by others', (d: string) => chmodSync(d, 0o777)],
  ] as const) {
    const shared = mkdtempSync(join(dir, 'shared-'));
    const path = join(shared, 'node.plan');
    await writePlanFile(path, plan);
    prepare(shared);
    const mine = new RegExp(`lies in ${shared}, which someone other than root can change`);
    await assert.rejects(readPlanFile(path), refusedAs(mine), why);
    const next = join(shared, 'next.plan');
    await assert.rejects(writePlanFile(next, plan), refusedAs(/would lie in .*someone other/), why);
    // Below it, too: every ancestor counts, through a link to it as well.
    const below = join(shared, 'below');
    mkdirSync(below, { mode: 0o700 });
    await assert.rejects(writePlanFile(join(below, 'x.plan'), plan), refusedAs(/would lie in/));
    symlinkSync(shared, join(dir, `to-${why.length}`));
    await assert.rejects(readPlanFile(join(dir, `to-${why.length}`, 'node.plan')), refusedAs(mine));
  }
  const sticky = mkdtempSync(join(dir, 'sticky-'));
  chmodSync(sticky, 0o1777);
  const path = join(sticky, 'node.plan');
  await writePlanFile(path, plan);
  assert.deepEqual(await readPlanFile(path), plan, 'a root-owned sticky directory, as /tmp');
});

/** Another account, as the audit's: a uid with no entry anywhere, through util-linux's setpriv. */
const OTHER = 4242;
const asOther = (argv: string[]) =>
  execFileSync('setpriv', [`--reuid=${OTHER}`, `--regid=${OTHER}`, '--clear-groups', ...argv]);

test('DECL-05 SEC-02 issue #37 a plan reached through a directory or a link of another user is neither read nor written, so a reviewed plan cannot be swapped', async () => {
  // The audit's path: $W/alice is another user's, and so is the link $W/alice/plans -> reviewed.
  // show-plan read the no-op plan there; the user pointed the link at kept/, holding another
  // valid plan of root's under the same name, and apply read that one (only the link's target
  // directory was checked, and the path was opened again after the check).
  const w = mkdtempSync(join(tmpdir(), 'oac-plan-users-'));
  after(() => rmSync(w, { recursive: true, force: true }));
  chmodSync(w, 0o755); // the other user must reach its own directory
  const other: SavedPlan = { ...plan, options: { ...plan.options, name: 'another-node' } };
  const [alice, reviewed, kept] = ['alice', 'reviewed', 'kept'].map((name) => join(w, name));
  for (const d of [alice, reviewed, kept]) mkdirSync(d as string, { mode: 0o700 });
  chownSync(alice as string, OTHER, OTHER);
  await writePlanFile(join(reviewed as string, 'node.plan'), plan);
  await writePlanFile(join(kept as string, 'node.plan'), other);
  asOther(['ln', '-s', reviewed as string, join(alice as string, 'plans')]);

  const viaAlice = join(alice as string, 'plans', 'node.plan');
  const aliceDir = new RegExp(`lies in ${alice}, which someone other than root can change`);
  await assert.rejects(readPlanFile(viaAlice), refusedAs(aliceDir), 'show-plan and apply');
  await assert.rejects(
    writePlanFile(join(alice as string, 'plans', 'next.plan'), plan),
    refusedAs(new RegExp(`would lie in ${alice}, which someone other than root can change`)),
    '--plan-out',
  );

  // A link of another user's in root's own directory (chown -h, as a user could leave one
  // where root later made the directory its own): refused for what it is, both ways.
  const theirs = join(w, 'theirs');
  symlinkSync(reviewed as string, theirs);
  execFileSync('chown', ['-h', `${OTHER}:${OTHER}`, theirs]);
  const theirLink = new RegExp(`is reached through the link ${theirs}, which someone other`);
  await assert.rejects(readPlanFile(join(theirs, 'node.plan')), refusedAs(theirLink));
  await assert.rejects(writePlanFile(join(theirs, 'next.plan'), plan), refusedAs(theirLink));
  assert.deepEqual(readdirSync(reviewed as string), ['node.plan'], 'nothing written there');

  // Root's own links are walked like the rest: relative, absolute, and `..` as the kernel reads it.
  symlinkSync('reviewed', join(w, 'mine'));
  assert.deepEqual(await readPlanFile(join(w, 'mine', 'node.plan')), plan);
  symlinkSync(kept as string, join(w, 'mine-abs'));
  assert.deepEqual(await readPlanFile(join(w, 'mine-abs', 'node.plan')), other);
  const viaDots = join(w, 'mine').concat('/../kept/node.plan'); // mine/.. is $W, as the kernel says
  assert.deepEqual(await readPlanFile(viaDots), other);
  await writePlanFile(join(w, 'mine', 'next.plan'), plan);
  assert.deepEqual(readdirSync(reviewed as string).sort(), ['next.plan', 'node.plan']);
});

test('SEC-11 issue #37 what the file system answers on the way is one line of the plan file, never an internal error: a name too long, a path that names no file', async () => {
  const long = join(dir, 'y'.repeat(300), 'node.plan');
  await assert.rejects(readPlanFile(long), refusedAs(/which cannot be read \(ENAMETOOLONG\)$/));
  await assert.rejects(
    writePlanFile(long, plan),
    refusedAs(/which cannot be read \(ENAMETOOLONG\)$/),
  );
  const path = join(dir, 'dotted.plan');
  await writePlanFile(path, plan);
  for (const odd of [`${path}/.`, `${path}/`, `${dir}/..`]) {
    await assert.rejects(readPlanFile(odd), refusedAs(/names no file$/), odd);
    await assert.rejects(writePlanFile(odd, plan), refusedAs(/names no file$/), odd);
  }
  assert.deepEqual(await readPlanFile(path), plan, 'the plan itself untouched');
});

test('SEC-02 issue #37 a plan written onto a directory is refused in one line and leaves no temp file', async () => {
  const target = mkdtempSync(join(dir, 'in-the-way-'));
  await assert.rejects(writePlanFile(target, plan), refusedAs(/cannot be written \(EISDIR\)/));
  assert.deepEqual(
    readdirSync(dir).filter((name) => name.endsWith('.tmp')),
    [],
    'the temp file beside it is removed',
  );
});

test('DECL-05 apply compares part by part and names what moved; the same plan once applied is stale (exit 3)', () => {
  const now = { steps: plan.steps, fingerprint: { ...plan.fingerprint } };
  assert.doesNotThrow(() => checkSavedPlan(plan, now, null));
  const stale = (what: RegExp) => (e: unknown) =>
    e instanceof OacError && e.code === 'plan_stale' && e.exitCode === 3 && what.test(e.message);
  assert.throws(
    () =>
      checkSavedPlan(
        plan,
        {
          ...now,
          fingerprint: { ...now.fingerprint, 'resource:account:oac-node': 'c'.repeat(64) },
        },
        null,
      ),
    stale(/^The saved plan is stale: account:oac-node changed on the host; nothing was changed$/),
  );
  assert.throws(
    () =>
      checkSavedPlan(
        plan,
        { ...now, fingerprint: { ...now.fingerprint, journal: '0'.repeat(64) } },
        null,
      ),
    stale(/the installation's record changed/),
  );
  assert.throws(
    () =>
      checkSavedPlan(
        plan,
        {
          ...now,
          steps: [{ step: 'account:oac-node', action: { kind: 'unchanged', detail: 'x' } }],
        },
        null,
      ),
    stale(/its step account:oac-node differs/),
  );
  assert.throws(
    () => checkSavedPlan(plan, now, planDigest(plan.fingerprint)),
    stale(/this plan was applied already/),
  );
});
