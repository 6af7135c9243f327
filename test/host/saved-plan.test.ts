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
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
