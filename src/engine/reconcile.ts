// Reconcile: the one loop of install and rerun (DESIGN.md "Shape"), root's and the node half's
// alike. For each desired resource in order: probe, diff, and (unless this is a dry run) apply,
// then, for root, record in the journal what happened. Ownership comes from what happened (DECL-02): intent is written just before a
// creation; a resource this run (or a killed run of this installation) created is `owned`, one
// that was there before is `adopted`. Resources the node half makes are intended before it runs
// and recorded after, from what is then on the host. A signal stops at a resource boundary and
// the next run continues (RERUN-04).
import { OacError } from '../errors.ts';
import { stopIfAborted } from './interrupted.ts';
import type { DriverContext } from './driver.ts';
import { driverOf } from './drivers/index.ts';
import type { Emit } from './events.ts';
import {
  isRecorded,
  nameOf,
  recordedProps,
  type DirectoryResource,
  type NetworkResource,
  type RecordedResource,
  type Resource,
} from './resources.ts';
import { changes, outcomeWithoutApply, type Action, type StepResult } from './step.ts';
import type { Journal, Ownership } from '../../records/journal.ts';
import { isProvablyOurs } from './provable.ts';
import { RESTART_OWED } from './drivers/service.ts';

export interface StepReport {
  step: string;
  action: Action;
  result?: StepResult;
}

export interface RunReport {
  steps: StepReport[];
  /** Whether anything changed (or, in a dry run, would change). */
  changed: boolean;
}

export interface ReconcileOptions {
  dryRun: boolean;
  emit: Emit;
  signal?: AbortSignal;
}

/** Made by the node half (HOST-08): root intends them, the child creates them. */
function madeByNode(r: Resource): r is NetworkResource | DirectoryResource {
  return r.kind === 'network' || (r.kind === 'directory' && r.madeBy === 'node');
}

export async function reconcile(
  resources: Resource[],
  ctx: DriverContext,
  options: ReconcileOptions,
): Promise<RunReport> {
  const run: Run = {
    all: resources,
    ctx,
    options,
    planned: new Map(),
    reports: [],
    awaitingNode: [],
  };
  for (const r of resources) {
    stopIfAborted(options.signal);
    await step(r, options.emit, () => reconcileOne(r, run));
  }
  return { steps: run.reports, changed: run.reports.some((r) => changes(r.action)) };
}

interface Run {
  all: Resource[];
  ctx: DriverContext;
  options: ReconcileOptions;
  /** The actions decided so far, by key (the service restarts when what it reads changes). */
  planned: Map<string, Action>;
  reports: StepReport[];
  /** Root's resources the node half is to make, recorded once it ran. */
  awaitingNode: RecordedResource[];
}

async function reconcileOne(r: Resource, run: Run): Promise<StepResult | undefined> {
  const { ctx, options } = run;
  const journal = ctx.journal;
  const driver = driverOf(r.kind);
  const actual = await driver.probe(r, ctx);
  const exists = driver.exists(actual);
  let recorded = isRecorded(r) ? journal?.get(r.key)?.ownership : undefined;
  let action = driver.diff(r, actual, run.planned);
  if (journal !== undefined && isRecorded(r) && exists && recorded === undefined) {
    // Found, and no run of ours announced it: the host had it before us, unless it is
    // provably this installation's (a rerun after its journal was lost).
    if (await isProvablyOurs(r, ctx)) recorded = 'owned';
    else if (action.kind === 'unchanged')
      action = { ...action, kind: 'adopt', detail: `adopt existing ${action.detail}` };
  }
  run.planned.set(r.key, action);
  options.emit({ type: 'step-plan', step: r.key, action });
  const report: StepReport = { step: r.key, action };
  run.reports.push(report);
  if (options.dryRun) return undefined;
  if (journal !== undefined && isRecorded(r)) {
    if (changes(action)) await markRestartPending(r, run.all, journal);
    if (action.kind === 'create') await journal.intend(r.key, r.kind, nameOf(r));
    if (action.kind === 'create' && ctx.node !== undefined && madeByNode(r)) {
      run.awaitingNode.push(r);
      return undefined;
    }
  }
  const result =
    outcomeWithoutApply(action) ?? (await applyWith(driver.apply, r, action, actual, ctx));
  report.result = result;
  if (journal === undefined) return result;
  if (r.kind === 'node') await recordNodeMade(run.awaitingNode.splice(0), ctx, journal);
  if (!isRecorded(r)) return result;
  if (result.outcome === 'removed' || isStaleSkip(r, action, recorded)) await journal.forget(r.key);
  else if (action.kind !== 'skip') await record(r, ownershipAfter(recorded, exists), journal);
  return result;
}

/** Runs one resource between its step-start and its step-done or step-failed events. */
export async function step(
  r: Resource,
  emit: Emit,
  body: () => Promise<StepResult | undefined>,
): Promise<void> {
  emit({ type: 'step-start', step: r.key, title: r.title, phase: r.phase });
  try {
    const result = await body();
    if (result !== undefined) emit({ type: 'step-done', step: r.key, result });
  } catch (error) {
    const code = error instanceof OacError ? error.code : 'internal';
    const message = error instanceof Error ? error.message : String(error);
    const hint = error instanceof OacError ? error.hint : undefined;
    emit({
      type: 'step-failed',
      step: r.key,
      code,
      message,
      ...(hint === undefined ? {} : { hint }),
    });
    throw error;
  }
}

async function applyWith(
  apply: ((...args: never[]) => Promise<StepResult>) | undefined,
  r: Resource,
  action: Action,
  actual: unknown,
  ctx: DriverContext,
): Promise<StepResult> {
  if (apply === undefined) throw new Error(`${r.key} is made by the node half`);
  return (apply as (...args: unknown[]) => Promise<StepResult>)(r, action, actual, ctx);
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
function isStaleSkip(r: Resource, action: Action, recorded: Ownership | undefined): boolean {
  return action.kind === 'skip' && recorded !== undefined && r.kind === 'file' && r.sha256 === null;
}

/** DECL-03, crash-safe: before a resource the service reads changes, the service's record says
 *  a restart is owed, so a run killed between the change and the restart still restarts it. */
async function markRestartPending(r: Resource, all: Resource[], journal: Journal): Promise<void> {
  for (const service of all) {
    if (service.kind !== 'service' || !service.reads.includes(r.key)) continue;
    const entry = journal.get(service.key);
    if (entry === undefined || entry.props.inputs === RESTART_OWED) continue;
    await journal.record(service.key, {
      ...entry,
      props: { ...entry.props, inputs: RESTART_OWED },
    });
  }
}

async function record(r: RecordedResource, ownership: Ownership, journal: Journal): Promise<void> {
  await journal.record(r.key, {
    kind: r.kind,
    name: nameOf(r),
    ownership,
    props: recordedProps(r),
  });
}

/** After the node half ran: what it was to make and now exists is ours; what it did not make
 *  is not recorded. */
async function recordNodeMade(
  made: RecordedResource[],
  ctx: DriverContext,
  journal: Journal,
): Promise<void> {
  // The child reported each of these as its own step; root only records what it now finds.
  for (const r of made) {
    const driver = driverOf(r.kind);
    if (driver.exists(await driver.probe(r, ctx))) await record(r, 'owned', journal);
    else await journal.forget(r.key);
  }
}
