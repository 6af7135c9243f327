// UPG-02, issue #38: an upgrade's roll back is a step of the plan, not a hand-written path (and an
// uninstall's end is one too: src/installation/installation-record.ts, the last test). The
// core applies a settling step (src/core/driver.ts `settles`) after a step before it failed too,
// giving it that failure; what it throws is the run's error; nothing settles after an
// interruption; and the roll back's step is planned exactly when a program is kept
// (src/installation/upgrade-rollback.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applySteps, type Applier } from '../../src/core/apply.ts';
import type { PlannedStep } from '../../src/core/plan.ts';
import type { Action } from '../../src/core/step.ts';
import { upgradeRollbackDriver } from '../../src/installation/upgrade-rollback.ts';
import { installationRecordDriver } from '../../src/installation/installation-record.ts';
import type {
  InstallationRecordResource,
  UpgradeRollbackResource,
} from '../../src/resources/resources.ts';

const stepOf = (key: string, action: Action, settles = false): PlannedStep => ({
  resource: { kind: 'x', key, title: key, ...(settles ? { settles: true } : {}) },
  action,
  actual: undefined,
  exists: false,
});
const update = (detail: string): Action => ({ kind: 'update', detail });

/** Applies the steps; `fails` names the step whose apply throws; each apply is logged with the
 *  failure it was given. */
async function run(
  steps: PlannedStep[],
  fails: Record<string, Error>,
  signal?: AbortSignal,
): Promise<{ log: string[]; error: unknown }> {
  const log: string[] = [];
  const applier: Applier<PlannedStep> = {
    before: async () => 'apply',
    async apply(s, failure) {
      log.push(`${s.resource.key}${failure instanceof Error ? ` after ${failure.message}` : ''}`);
      const error = fails[s.resource.key];
      if (error !== undefined) throw error;
      return { outcome: 'updated', detail: s.resource.key };
    },
    after: async () => undefined,
    refused: () => new Error('refused'),
  };
  const error = await applySteps({ steps, refusals: [] }, applier, {
    dryRun: false,
    emit: () => undefined,
    ...(signal === undefined ? {} : { signal }),
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { log, error };
}

test('UPG-02 DECL-06 a settling step runs after a failed step, given the failure, and the steps between are not applied', async () => {
  const failure = new Error('service failed');
  const steps = [
    stepOf('program', update('replace')),
    stepOf('service', update('restart')),
    stepOf('unit', update('write')),
    stepOf('settle', update('wait, or roll back'), true),
  ];
  const { log, error } = await run(steps, { service: failure });
  assert.deepEqual(log, ['program', 'service', 'settle after service failed']);
  assert.equal(error, failure, 'a settling step that returns leaves the failure the run error');
});

test("UPG-02 DECL-06 a settling step's own error is the run's (the roll back says what failed and what runs now)", async () => {
  const rolledBack = new Error('rolled back');
  const steps = [stepOf('service', update('restart')), stepOf('settle', update('settle'), true)];
  const failed = await run(steps, { service: new Error('service failed'), settle: rolledBack });
  assert.equal(failed.error, rolledBack);
  // Without a failure before it, it is applied as any step, given none.
  const clean = await run(steps, {});
  assert.deepEqual(clean.log, ['service', 'settle']);
  assert.equal(clean.error, undefined);
});

test('UPG-02 DECL-06 OPS-03 nothing settles after an interruption (the next run decides), nor a settling step with nothing to do', async () => {
  const controller = new AbortController();
  const interrupted = new Error('interrupted');
  const steps = [stepOf('program', update('replace')), stepOf('settle', update('settle'), true)];
  const aborting: Record<string, Error> = {};
  Object.defineProperty(aborting, 'program', {
    get() {
      controller.abort(interrupted);
      return interrupted;
    },
    enumerable: true,
  });
  const stopped = await run(steps, aborting, controller.signal);
  assert.deepEqual(stopped.log, ['program']);
  assert.equal(stopped.error, interrupted);
  const skipped = [
    stepOf('program', update('replace')),
    stepOf('settle', { kind: 'skip', detail: 'no upgrade to settle' }, true),
  ];
  const failure = new Error('program failed');
  const nothing = await run(skipped, { program: failure });
  assert.deepEqual(nothing.log, ['program']);
  assert.equal(nothing.error, failure);
});

const ROLLBACK: UpgradeRollbackResource = {
  kind: 'upgrade-rollback',
  key: 'upgrade-rollback',
  title: 'Keep the new program once ready, or roll back',
  phase: 'ready',
  path: '/usr/local/lib/oac-node/inst-1/oac-node.previous',
  unit: 'oac-node-inst-1.service',
  version: '0.2.0',
  settles: true,
};

test('UPG-02 DECL-06 the roll back is planned exactly when a program is kept: by this plan, or by an earlier run that did not finish', () => {
  const planned = (kind: Action['kind']) =>
    new Map<string, Action>([['program-previous', { kind, detail: 'keep' }]]);
  const diff = upgradeRollbackDriver.diff;
  assert.equal(diff(ROLLBACK, { pending: false }, new Map()).kind, 'skip', 'a first install');
  assert.equal(diff(ROLLBACK, { pending: false }, planned('skip')).kind, 'skip', 'a rerun');
  const upgrade = diff(ROLLBACK, { pending: false }, planned('create'));
  assert.equal(upgrade.kind, 'update');
  assert.match(upgrade.detail, /ready on oac-node 0\.2\.0.*put the kept one back/);
  assert.equal(diff(ROLLBACK, { pending: true }, planned('keep')).kind, 'update', 'left by a run');
});

const RECORD: InstallationRecordResource = {
  kind: 'installation-record',
  key: 'record',
  title: "The installation's record",
  phase: 'account',
  path: '/etc/oac-node/inst-1.json',
  unit: 'oac-node-inst-1.service',
  keep: false,
};

test('UNI-02 UNI-05 DECL-06 the end of an uninstall is its last step: the record removed, kept with a store Core has not confirmed (a change once), what a killed run left finished, or nothing', () => {
  const diff = (keep: boolean, present: boolean, marked = false, leftOver = false) =>
    installationRecordDriver.diff({ ...RECORD, keep }, { present, marked, leftOver }, new Map());
  assert.deepEqual(diff(false, true), {
    kind: 'remove',
    detail: 'remove the record /etc/oac-node/inst-1.json',
  });
  const kept = diff(true, true);
  assert.equal(kept.kind, 'update', 'the store is marked kept unconfirmed: a write of the plan');
  assert.match(kept.detail, /with the store until Core confirms the node gone/);
  assert.equal(diff(true, true, true).kind, 'keep', 'marked already: a rerun changes nothing');
  assert.equal(diff(false, false).kind, 'skip');
  assert.equal(diff(true, false).kind, 'skip');
  const leftOver = diff(false, false, false, true);
  assert.equal(leftOver.kind, 'remove', 'an empty records directory or a listed unit, finished');
  assert.match(
    leftOver.detail,
    /forget oac-node-inst-1\.service and remove \/etc\/oac-node if empty/,
  );
});
