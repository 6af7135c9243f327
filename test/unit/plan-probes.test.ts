// Issue #41 (DECL-07): a plan starts every probe at once, the long ones (the node half's dry
// run) first, and takes their answers in the plan's order: the first probe that failed in that
// order is the plan's failure, told as its step's failure, whatever finished first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planSteps } from '../../src/core/plan.ts';
import type { Driver } from '../../src/core/driver.ts';
import type { EngineEvent } from '../../src/core/events.ts';

interface R {
  kind: string;
  key: string;
  title: string;
}
const r = (key: string): R => ({ kind: 'x', key, title: key });

/** A driver whose probe of each key answers after `delays[key]` ms, or fails with `fails[key]`,
 *  noting when each probe started and ended. */
function timedDriver(
  delays: Record<string, number>,
  fails: Record<string, string> = {},
  long: string[] = [],
) {
  const log: string[] = [];
  const driver = (key: string): Driver<R, string, undefined> => ({
    probesLong: long.includes(key),
    probe: async (res) => {
      log.push(`start ${res.key}`);
      await new Promise((resolve) => setTimeout(resolve, delays[res.key] ?? 0));
      log.push(`end ${res.key}`);
      const failure = fails[res.key];
      if (failure !== undefined) throw new Error(failure);
      return `found ${res.key}`;
    },
    exists: () => true,
    diff: (_r, actual) => ({ kind: 'unchanged', detail: actual }),
    remove: () => Promise.resolve({ outcome: 'skipped', detail: '' }),
  });
  const planner = {
    driverOf: (res: R) => driver(res.key),
    judge: async <S>(step: S) => step,
  };
  return { log, planner };
}

test('DECL-07 every probe starts before the first answer is taken; the long one first; the steps keep the plan order', async () => {
  const { log, planner } = timedDriver({ a: 30, b: 0, node: 10 }, {}, ['node']);
  const plan = await planSteps([r('a'), r('b'), r('node')], undefined, planner);
  assert.deepEqual(log.slice(0, 3), ['start node', 'start a', 'start b']);
  assert.ok(log.indexOf('end b') < log.indexOf('end a'), log.join(', '));
  assert.deepEqual(
    plan.steps.map((s) => s.action.detail),
    ['found a', 'found b', 'found node'],
  );
});

test('DECL-07 the first failure in plan order is the plan failure, told as that step, though a later probe failed sooner', async () => {
  const { planner } = timedDriver({ a: 0, b: 40, c: 0 }, { b: 'b broke', c: 'c broke' });
  const events: EngineEvent[] = [];
  await assert.rejects(
    planSteps([r('a'), r('b'), r('c')], undefined, planner, { emit: (e) => events.push(e) }),
    /b broke/,
  );
  const failed = events.filter((e) => e.type === 'step-failed').map((e) => e.step);
  assert.deepEqual(failed, ['b'], 'only the failing step first in order is told');
});

test('DECL-07 a probe that throws before its first await is a failure of its step, not of the planner', async () => {
  const { planner } = timedDriver({});
  const broken = {
    ...planner,
    driverOf: (res: R) =>
      res.key === 'b'
        ? ({
            ...planner.driverOf(res),
            probe: () => {
              throw new Error('at once');
            },
          } as unknown as Driver<R, string, undefined>)
        : planner.driverOf(res),
  };
  await assert.rejects(planSteps([r('a'), r('b')], undefined, broken), /at once/);
});

test('DECL-07 probes of one plan that read the same thing share one read; the next plan reads again', async () => {
  let reads = 0;
  const read = async () => {
    reads += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return `read ${reads}`;
  };
  const driver: Driver<R, string, undefined> = {
    // As the unit's and the service's probes ask for one unit's systemd state.
    probe: (_r, _ctx, shared) => (shared === undefined ? read() : shared.once('unit-state', read)),
    exists: () => true,
    diff: (_r, actual) => ({ kind: 'unchanged', detail: actual }),
    remove: () => Promise.resolve({ outcome: 'skipped', detail: '' }),
  };
  const planner = { driverOf: () => driver, judge: async <S>(step: S) => step };
  const first = await planSteps([r('unit'), r('service')], undefined, planner);
  assert.deepEqual(
    first.steps.map((s) => s.action.detail),
    ['read 1', 'read 1'],
  );
  const second = await planSteps([r('unit'), r('service')], undefined, planner);
  assert.deepEqual(
    second.steps.map((s) => s.action.detail),
    ['read 2', 'read 2'],
    'a plan never takes an earlier plan’s read',
  );
  assert.equal(reads, 2);
});
