// Reconcile: how root applies a wanted resource's step (src/installation/plan-for.ts plans and
// applies; src/core/apply.ts runs the steps): the journal written around each step (the node
// half's own loop is src/node/reconcile.ts). Ownership comes from what happened (DECL-02): intent is written just before a
// creation; a resource this run (or a killed run of this installation) created is `owned`, one
// that was there before is `adopted`. Resources the node half makes are intended in one write
// just before it runs and recorded in one after, from what is then on the host.
// The same role as src/node/reconcile.ts for the other half (a parallel pair,
// test/unit/file-names.test.ts).
import type { Applier } from '../core/apply.ts';
import type { InstallContext, RootContext } from './root-context.ts';
import { driverOf, type RootResource } from './drivers.ts';
import type { RecordedResource } from '../resources/resources.ts';
import { isRecorded, kindOf, nameOf, recordedProps } from './kinds.ts';
import { KEYS } from '../resources/keys.ts';
import { changes, type Action, type StepResult } from '../core/step.ts';
import type { Journal, Ownership } from '../../records/journal.ts';
import type { Plan, PlannedStep } from './root-plan.ts';
import { refusalError } from '../resources/refusal-error.ts';
import { RESTART_OWED } from '../resources/drivers/service.ts';

export type { RunReport, StepReport } from '../core/apply.ts';
export { step } from '../core/apply.ts';

/** Made by the node half (HOST-08): root intends them, the child creates them. */
function madeByNode(r: RootResource): r is RecordedResource {
  return isRecorded(r) && kindOf(r).madeByNode(r);
}

/** Whether this run's context is an install's (the node half runs, and makes its resources). */
const runsNodeHalf = (ctx: RootContext): ctx is InstallContext =>
  (ctx as Partial<InstallContext>).node !== undefined;

/** The journal's writes around each step: intent before a creation, the record after. */
export function recordingApplier(planned: Plan, ctx: RootContext): Applier<PlannedStep> {
  const all = planned.steps.map((p) => p.resource);
  const journal = ctx.journal;
  /** Root's resources the node half is to make, intended and recorded around its step. */
  const awaitingNode: RecordedResource[] = [];
  return {
    async before({ resource: r, action }) {
      if (isRecorded(r)) {
        if (changes(action)) await markRestartPending(r, all, journal);
        if (action.kind === 'create' && runsNodeHalf(ctx) && madeByNode(r)) {
          // Intended together just before the node half runs (it makes them all at once).
          awaitingNode.push(r);
          return 'deferred';
        }
        if (action.kind === 'create') await journal.intend(r.key, r.kind, nameOf(r));
      }
      if (r.key === KEYS.node) await intendNodeMade(awaitingNode, journal);
      return 'apply';
    },
    apply({ resource: r, action, actual }, failure) {
      return applyWith(driverOf(r).apply, r, action, actual, ctx, failure);
    },
    async after({ resource: r, action, recorded, exists }, result) {
      if (r.key === KEYS.node) await recordNodeMade(awaitingNode.splice(0), ctx, journal);
      if (!isRecorded(r)) return;
      if (result.outcome === 'removed' || isStaleSkip(r, action, recorded))
        await journal.forget(r.key);
      else if (action.kind !== 'skip') await record(r, ownershipAfter(recorded, exists), journal);
    },
    refused: refusalError,
  };
}

async function applyWith(
  apply: ((...args: never[]) => Promise<StepResult>) | undefined,
  r: RootResource,
  action: Action,
  actual: unknown,
  ctx: RootContext,
  failure: unknown,
): Promise<StepResult> {
  if (apply === undefined) throw new Error(`${r.key} is made by the node half`);
  return (apply as (...args: unknown[]) => Promise<StepResult>)(r, action, actual, ctx, failure);
}

/** Recorded: `owned` when this run made it (it was absent at the probe, even if an earlier
 *  one was adopted) or a run of this installation announced it (intended), `adopted` when it
 *  was there before any of our runs. */
function ownershipAfter(recorded: Ownership | undefined, existedBefore: boolean): Ownership {
  if (!existedBefore || recorded === 'intended') return 'owned';
  return recorded ?? 'adopted';
}

/** An env file wanted absent and already gone, still recorded: a run killed between removing
 *  it and forgetting it. */
function isStaleSkip(r: RootResource, action: Action, recorded: Ownership | undefined): boolean {
  return action.kind === 'skip' && recorded !== undefined && kindOf(r).wantedAbsent(r);
}

/** DECL-03, crash-safe: before a resource the service reads changes, the service's record says
 *  a restart is owed, so a run killed between the change and the restart still restarts it. */
async function markRestartPending(
  r: RootResource,
  all: RootResource[],
  journal: Journal,
): Promise<void> {
  for (const service of all) {
    if (!kindOf(service).reads(service).includes(r.key)) continue;
    const entry = journal.get(service.key);
    if (entry === undefined || entry.props.inputs === RESTART_OWED) continue;
    await journal.record(service.key, {
      ...entry,
      props: { ...entry.props, inputs: RESTART_OWED },
    });
  }
}

async function record(r: RecordedResource, ownership: Ownership, journal: Journal): Promise<void> {
  await journal.record(r.key, entryOf(r, ownership));
}

const entryOf = (r: RecordedResource, ownership: Ownership) => ({
  kind: r.kind,
  name: nameOf(r),
  ownership,
  props: recordedProps(r),
});

/** After the node half ran: what it was to make and now exists is ours; what it did not make
 *  is not recorded. */
async function recordNodeMade(
  made: RecordedResource[],
  ctx: RootContext,
  journal: Journal,
): Promise<void> {
  // The child reported each of these as its own step; root only records what it now finds, in
  // one write.
  const found: RecordedResource[] = [];
  for (const r of made) {
    const driver = driverOf(r as RootResource);
    if (driver.exists(await driver.probe(r, ctx))) found.push(r);
  }
  await journal.recordAll(found.map((r) => ({ key: r.key, entry: entryOf(r, 'owned') })));
  for (const r of made) if (!found.includes(r)) await journal.forget(r.key);
}

/** The node half's resources it is to make, announced in one write before it runs. */
async function intendNodeMade(made: RecordedResource[], journal: Journal): Promise<void> {
  await journal.intendAll(made.map((r) => ({ key: r.key, kind: r.kind, name: nameOf(r) })));
}
