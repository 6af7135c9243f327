// Issue #38 item 3: the node half's plan comes to root as data. Root's node step is diffed from
// the node half's own steps (its dry run as oac-node, or root's plan of the node account's part
// before the program is installed), and carries them as typed parts that a dry run shows one
// row each (`node:<step>`), and a saved plan compares one by one; on an upgrade the installed
// (older) program's plan is not shown as the one that runs, and the line says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applySteps } from '../../src/core/apply.ts';
import { planSteps } from '../../src/core/plan.ts';
import { OacError } from '../../src/errors.ts';
import { interruptedError } from '../../src/interrupted.ts';
import { checkSavedPlan, planStepsOf, type SavedPlan } from '../../src/installation/saved-plan.ts';
import type { EngineEvent } from '../../src/core/events.ts';
import type { Action, ActionPart } from '../../src/core/step.ts';
import { KEYS } from '../../src/installation/desired.ts';
import { nodeHalfDriver } from '../../src/installation/node-half.ts';
import type { NodeHalfResource } from '../../src/resources/resources.ts';

const NODE: NodeHalfResource = {
  kind: 'node',
  key: KEYS.node,
  title: 'Node half',
  phase: 'prepare',
};
const step = (name: string, action: Action): ActionPart => ({
  step: name,
  title: `The ${name}`,
  action,
});
const files = step('files', { kind: 'unchanged', detail: 'files verified' });
const image = step('image', { kind: 'create', detail: 'download and load oac-runtime:1' });
const none = new Map<string, Action>();
const diff = (steps: ActionPart[], earlier = none, firstInstall = false) =>
  nodeHalfDriver.diff(
    NODE,
    firstInstall ? { planned: undefined, steps } : { planned: steps.map((s) => s.action), steps },
    earlier,
  );

test("DECL-03 RERUN-01 the node step is the node half's steps as parts: changed when one of them changes, each kept as data", () => {
  const changed = diff([files, image]);
  assert.equal(changed.kind, 'update');
  assert.equal(changed.detail, '1 step of the node half changes (as oac-node)');
  assert.deepEqual(changed.parts, [files, image], 'typed steps, not a line of text');
  const same = diff([files]);
  assert.equal(same.kind, 'unchanged');
  assert.deepEqual(same.parts, [files]);
});

test("DECL-03 before the program is installed, root's own plan of the node account's part is the parts", () => {
  const first = diff(
    [step('state', { kind: 'create', detail: 'create the state directory' })],
    none,
    true,
  );
  assert.equal(first.kind, 'create');
  assert.deepEqual(
    first.parts?.map((p) => p.step),
    ['state'],
  );
});

test("DECL-03 PRE-09 a refusal of the node half is the node step's, with its parts", () => {
  const refusal = { code: 'provider_file_changed', message: 'the provider file was edited' };
  const refused = diff([
    files,
    step('provider-file', { kind: 'refuse', detail: 'x', refusals: [refusal] }),
  ]);
  assert.equal(refused.kind, 'refuse');
  assert.deepEqual(refused.refusals, [refusal]);
  assert.equal(refused.parts?.length, 2);
});

test("UPG-01 DECL-03 on an upgrade the installed program's plan is not shown as the one that runs", () => {
  const upgrade = new Map<string, Action>([[KEYS.program, { kind: 'update', detail: 'program' }]]);
  const planned = diff([files, image], upgrade);
  assert.equal(planned.kind, 'update');
  assert.equal(planned.parts, undefined, 'no parts from the older program');
  assert.match(planned.detail, /planned by the new program once it is in place/);
});

test('DECL-03 a dry run shows each part as a row of its own; no event carries the parts', async () => {
  const events: EngineEvent[] = [];
  const action = diff([files, image]);
  const applier = {
    before: async () => 'apply' as const,
    apply: async () => ({ outcome: 'updated' as const, detail: 'x' }),
    after: async () => undefined,
    refused: () => new Error('not refused'),
  };
  const report = await applySteps(
    { steps: [{ resource: NODE, action, actual: undefined, exists: true }], refusals: [] },
    applier,
    { dryRun: true, emit: (e) => events.push(e) },
  );
  assert.equal(report.changed, true);
  const plans = events.flatMap((e) => (e.type === 'step-plan' ? [[e.step, e.action.kind]] : []));
  assert.deepEqual(plans, [
    ['node', 'update'],
    ['node:files', 'unchanged'],
    ['node:image', 'create'],
  ]);
  const titles = events.flatMap((e) =>
    e.type === 'step-start' ? [[e.step, e.title, e.phase]] : [],
  );
  assert.deepEqual(titles[1], ['node:files', 'The files', 'prepare']);
  for (const e of events) assert.ok(!('parts' in (e.type === 'step-plan' ? e.action : {})), e.step);
});

const NO_REMOVALS = { steps: [], refusals: [] };

test('DECL-05 a saved plan keeps and compares each part as a step of its own (node:<step>)', () => {
  const action = diff([files, image]);
  const plan = {
    steps: [{ resource: NODE, action, actual: undefined, exists: true, recorded: undefined }],
    refusals: [],
  };
  const steps = planStepsOf(NO_REMOVALS, plan);
  assert.deepEqual(
    steps.map((s) => s.step),
    ['node', 'node:files', 'node:image'],
  );
  const fingerprint = { journal: 'a'.repeat(64) };
  const saved = { steps, fingerprint } as unknown as SavedPlan;
  checkSavedPlan(saved, { steps, fingerprint }, null);
  // Only a part moved (the image is there now): the plan is stale, and the line names it.
  const now = planStepsOf(NO_REMOVALS, {
    ...plan,
    steps: [
      {
        ...plan.steps[0]!,
        action: diff([files, step('image', { kind: 'unchanged', detail: 'image' })]),
      },
    ],
  });
  assert.throws(
    () => checkSavedPlan(saved, { steps: now, fingerprint }, null),
    (e: unknown) =>
      e instanceof OacError &&
      e.code === 'plan_stale' &&
      /step node(:image)? differs/.test(e.message),
  );
});

test("OPS-03 a run stops on its signal with the abort's reason itself: the core makes no error of its own", async () => {
  const stop = new AbortController();
  const reason = interruptedError('SIGINT');
  stop.abort(reason);
  const planner = { driverOf: () => nodeHalfDriver as never, judge: async <S>(s: S) => s };
  await assert.rejects(
    planSteps([NODE], {}, planner, { signal: stop.signal }),
    (e) => e === reason,
  );
  const applier = {
    before: async () => 'apply' as const,
    apply: async () => ({ outcome: 'updated' as const, detail: 'x' }),
    after: async () => undefined,
    refused: () => new Error('not refused'),
  };
  const planned = {
    steps: [{ resource: NODE, action: diff([image]), actual: undefined, exists: true }],
    refusals: [],
  };
  await assert.rejects(
    applySteps(planned, applier, { dryRun: false, emit: () => undefined, signal: stop.signal }),
    (e) => e === reason,
  );
});
