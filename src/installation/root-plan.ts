// The installation's plan (issue #23, DECL-01): the core's plan (src/core/plan.ts) over this
// installation's resources and drivers, each step judged by what the journal knows: a resource
// found that no run of ours announced is adopted, unless it is provably this installation's
// (a rerun after its journal was lost).
import type { Ownership } from '../../records/journal.ts';
import {
  planSteps,
  type Plan as CorePlan,
  type PlannedStep as CoreStep,
  type PlanStepsOptions,
} from '../core/plan.ts';
import type { RootContext } from './root-context.ts';
import { driverOf, type RootResource } from './drivers.ts';
import { isProvablyOurs } from './provable.ts';
import { isRecorded, kindOf } from './kinds.ts';
import { checkActual } from '../resources/kind.ts';
import { changes, type Action } from '../core/step.ts';
import { isVersion } from '../version.ts';

export { refusalError } from '../resources/refusal-error.ts';

export interface PlannedStep extends CoreStep<RootResource> {
  /** The journal's ownership of it before this run (root's resources only). */
  recorded: Ownership | undefined;
}

export type Plan = CorePlan<PlannedStep>;

export type PlanOptions = PlanStepsOptions;

export function plan(
  resources: RootResource[],
  ctx: RootContext,
  options: PlanOptions = {},
): Promise<Plan> {
  return planSteps(resources, ctx, { driverOf, judge }, options);
}

async function judge(step: CoreStep<RootResource>, ctx: RootContext): Promise<PlannedStep> {
  const { resource: r, exists } = step;
  checkActual(kindOf(r).schemas, r.key, step.actual);
  const journal = ctx.journal;
  let action = step.action;
  let recorded = isRecorded(r) ? journal.get(r.key)?.ownership : undefined;
  if (isRecorded(r) && exists && recorded === undefined) {
    // Found, and no run of ours announced it: the host had it before us, unless it is
    // provably this installation's (a rerun after its journal was lost).
    if (await isProvablyOurs(r, ctx)) recorded = 'owned';
    else if (action.kind === 'unchanged')
      action = { ...action, kind: 'adopt', detail: `adopt existing ${action.detail}` };
  }
  return { ...step, action: withVersions(r, action, journal.get(r.key)?.props.version), recorded };
}

/** UPG-01: a program replaced by another version says so (`0.1.0 → 0.2.0`), from the version
 *  the journal recorded for it; nothing is added when either is unknown or they are equal. */
function withVersions(r: RootResource, action: Action, before: unknown): Action {
  const version = kindOf(r).version(r);
  if (version === undefined || !changes(action)) return action;
  if (typeof before !== 'string' || !isVersion(before) || before === version) return action;
  return { ...action, detail: `${action.detail}: version ${before} → ${version}` };
}
