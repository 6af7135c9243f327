// Uninstall is reconcile with nothing wanted (docs/design.md "Shape"): the installation's resources
// in reverse order, each removed by its driver only when the journal says a run of this
// installation created it (`owned`, or `intended`: a run stopped around its creation). What
// stays, stays for a reason the plan can name (UNI-02…06): it was adopted; something still
// wants it (another installation's record lists the same resource); the caller keeps it (the
// microsandbox store without Core's confirmation); or a kept resource needs it (its owner, the
// directories it lies in: the resource's own `needs`). No list of keys decides.
import type { Applier } from '../core/apply.ts';
import type { Driver } from '../core/driver.ts';
import { planSteps, type Plan, type PlannedStep as CoreStep } from '../core/plan.ts';
import { refuse, type Action, type Refusal } from '../core/step.ts';
import type { RootContext } from './root-context.ts';
import { driverOf, type RootResource } from './drivers.ts';
import { isRecorded, kindOf, removalOf } from './kinds.ts';
import { checkActual } from '../resources/kind.ts';
import { refusalError } from '../resources/refusal-error.ts';

export interface RemoveOptions {
  /** Why the caller keeps a resource of ours this run, or undefined when it may go. */
  keepReason?: (r: RootResource) => string | undefined;
  /** Whether another installation still wants the resource (its record lists it). */
  wantedElsewhere?: (r: RootResource) => boolean;
  /** Why a resource the journal does not list is worth naming as kept (the account and home
   *  when the record is gone), or undefined to pass over it in silence. */
  unrecordedReason?: (r: RootResource) => string | undefined;
  signal?: AbortSignal;
}

export interface RemovalStep extends CoreStep<RootResource> {
  /** The journal's ownership of it before this run. */
  recorded: string | undefined;
}

export type RemovalPlan = Plan<RemovalStep>;

type RemovalContext = RootContext;

/** The plan with nothing wanted: every recorded resource, in reverse order, decided before
 *  anything is removed (a saved plan is compared with it, and it is applied as it stands). */
export function planRemoval(
  resources: RootResource[],
  ctx: RemovalContext,
  options: RemoveOptions,
): Promise<RemovalPlan> {
  /** What stays, by key: whatever it needs stays with it. */
  const kept = new Map<string, RootResource>();
  const recordedOf = (r: RootResource) => ctx.journal.get(r.key)?.ownership;
  const driver = (r: RootResource): Driver<RootResource, unknown, RemovalContext> => {
    const own = driverOf(r);
    // Probed only when named: recorded, or worth naming as kept without a record.
    const named = recordedOf(r) !== undefined || options.unrecordedReason?.(r) !== undefined;
    return {
      probe: async (res, c, reads) => (named ? own.probe(res, c, reads) : undefined),
      exists: (actual) => actual !== undefined && own.exists(actual),
      diff: (res, actual) =>
        unknownRemoval(
          res,
          recordedOf(res),
          actual === undefined ? undefined : own.unknown?.(res, actual),
        ) ??
        decide(res, recordedOf(res), actual !== undefined && own.exists(actual), {
          ...options,
          neededBy: neededBy(res, kept),
          replaced: actual === undefined ? undefined : own.replacedBy?.(res, actual),
        }),
      remove: (res, actual, c) => own.remove(res, actual, c),
    };
  };
  const judge = async (step: CoreStep<RootResource>): Promise<RemovalStep> => {
    const { resource: r, action, exists } = step;
    // Probed only when named (undefined otherwise).
    if (step.actual !== undefined) checkActual(kindOf(r).schemas, r.key, step.actual);
    // Only what the caller keeps this run (the unconfirmed store) holds what it needs: the
    // record stays with them, so a rerun finishes (an adopted resource needs nothing of ours).
    if (action.kind === 'keep' && exists && options.keepReason?.(r) !== undefined)
      kept.set(r.key, r);
    return { ...step, recorded: recordedOf(r) };
  };
  // The node half's own resources are not recorded: its removable parts are resources of their own.
  // Issue #39: what is neither recorded nor worth naming (the whole shape walked for an ID this
  // host has no record of) is no step at all, rather than a row of "not made by this
  // installation" each.
  const named = (r: RootResource) =>
    recordedOf(r) !== undefined || options.unrecordedReason?.(r) !== undefined;
  const recorded = [...resources].reverse().filter(isRecorded).filter(named);
  return planSteps(
    recorded,
    ctx,
    { driverOf: driver, judge },
    {
      signal: options.signal,
      emit: ctx.emit,
    },
  );
}

/** How a removal is applied (src/installation/plan-for.ts `applyPlanned`): by its driver's
 *  `remove`, then forgotten by the journal once done (or found gone). */
export function removalApplier(ctx: RemovalContext): Applier<RemovalStep> {
  return {
    before: async () => 'apply',
    apply: ({ resource: r, actual }) => driverOf(r).remove(r, actual, ctx),
    async after({ resource: r, action, recorded }, result) {
      if (result.outcome === 'removed' || (action.kind === 'skip' && recorded !== undefined))
        await ctx.journal.forget(r.key);
    },
    refused: refusalError,
  };
}

/** A resource of ours (owned, or intended by a run that stopped) whose state the probe could
 *  not learn: refused, so the plan stops before its first removal. */
function unknownRemoval(
  _r: RootResource,
  recorded: string | undefined,
  why: Refusal | undefined,
): Action | undefined {
  if (why === undefined || recorded === undefined || recorded === 'adopted') return undefined;
  return refuse(why);
}

/** The kept resource that needs `r`, if any. */
function neededBy(
  r: RootResource,
  kept: ReadonlyMap<string, RootResource>,
): RootResource | undefined {
  return [...kept.values()].find((k) => k.needs?.includes(r.key) === true);
}

function decide(
  r: RootResource,
  recorded: string | undefined,
  exists: boolean,
  options: RemoveOptions & { neededBy: RootResource | undefined; replaced: string | undefined },
): Action {
  const name = kindOf(r).label(r);
  if (recorded === undefined) {
    const why = exists ? options.unrecordedReason?.(r) : undefined;
    if (why !== undefined) return { kind: 'keep', detail: `${name} (${why})` };
    return { kind: 'skip', detail: `${name}: not made by this installation` };
  }
  if (recorded === 'adopted')
    return { kind: 'keep', detail: `${name} (adopted: it was there before the installer)` };
  if (!exists) return { kind: 'skip', detail: `${name} absent` };
  if (options.replaced !== undefined)
    return { kind: 'keep', detail: `${name} (${options.replaced})` };
  const reason = keepReasonOf(r, options);
  if (reason !== undefined) return { kind: 'keep', detail: `${name} (${reason})` };
  return { kind: 'remove', detail: removalOf(r) };
}

function keepReasonOf(
  r: RootResource,
  options: RemoveOptions & { neededBy: RootResource | undefined },
): string | undefined {
  if (options.wantedElsewhere?.(r) === true) return "another installation's node remains";
  const own = options.keepReason?.(r);
  if (own !== undefined) return own;
  const holder = options.neededBy;
  if (holder === undefined) return undefined;
  const what = `the kept ${holder.title.toLowerCase()}`;
  return kindOf(r).keptFor(what);
}
