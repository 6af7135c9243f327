// One planning function for every command (issue #38, after Terraform's one plan for apply,
// refresh-only and destroy): `planFor(command, inputs, ctx)` probes and diffs every resource
// once and returns one value, the removals first (what the record lists and is no longer
// wanted; for an uninstall, everything), then the wanted resources in order, and every
// diagnostic (refusals, the caller's first: Core's answer, for example). Nothing here writes;
// `applyPlanned` is the only way a plan reaches the host: a dry run shows every step, a plan
// with any diagnostic stops with all of them before its first write, otherwise each step is
// applied in the plan's order (removals by their drivers' `remove`, each forgotten by the
// journal once done; the rest between the journal's intent and record: ./reconcile.ts).
// install, rerun, `--dry-run`, `--plan-out`, `apply FILE`, a staging, status (refresh-only:
// nothing applied) and uninstall all plan here.
import { applySteps, type Applier, type ApplyOptions, type RunReport } from '../core/apply.ts';
import type { Emit } from '../core/events.ts';
import type { Refusal } from '../core/step.ts';
import { refusalError } from '../resources/refusal-error.ts';
import { recordingApplier } from './reconcile.ts';
import { planRemoval, removalApplier, type RemovalPlan, type RemoveOptions } from './remove.ts';
import type { RootContext, RootResource } from './root-context.ts';
import { plan, type Plan, type PlannedStep } from './root-plan.ts';
import { planStepsOf, probeDigests, type MadePlan } from './saved-plan.ts';

/** What is being planned: an install (and its rerun, dry run, saved plan and staging), a status
 *  (refresh-only: nothing is applied, every probe at once), or an uninstall (nothing wanted). */
export type Command = 'install' | 'status' | 'uninstall';

export interface PlanInputs {
  /** What the command wants, in order (install: the desired value's root view; status: what the
   *  record lists, to compare; uninstall: nothing). */
  wanted?: RootResource[];
  /** What goes, in the order given (reversed for removal by the plan): install, what the
   *  record lists and the desired value no longer wants; uninstall, the whole installation. */
  removals?: RootResource[];
  /** How a removal decides what stays (the uninstall's kept store, another installation's
   *  record, the unrecorded account). */
  keep?: Omit<RemoveOptions, 'signal'>;
  /** What the command decided before any probe (Core's answer to an uninstall): diagnostics of
   *  the plan, listed first. */
  diagnostics?: Refusal[];
}

export interface CommandPlan {
  command: Command;
  /** Applied first, in this order. */
  removal: RemovalPlan;
  /** Then these: the wanted resources' steps. */
  wanted: Plan;
  /** Every diagnostic of the plan, in order: with any, nothing is written. */
  diagnostics: Refusal[];
}

export interface PlanForOptions {
  signal?: AbortSignal;
  /** Told of a probe that fails (its step starts and fails before the error stops the plan). */
  emit?: Emit;
}

export async function planFor(
  command: Command,
  inputs: PlanInputs,
  ctx: RootContext,
  options: PlanForOptions = {},
): Promise<CommandPlan> {
  const { signal, emit } = options;
  const removal = await planRemoval(inputs.removals ?? [], ctx, { ...inputs.keep, signal });
  const wanted = await plan(inputs.wanted ?? [], ctx, {
    signal,
    emit,
    refreshOnly: command === 'status',
  });
  const diagnostics = [...(inputs.diagnostics ?? []), ...removal.refusals, ...wanted.refusals];
  return { command, removal, wanted, diagnostics };
}

/** The plan as a saved plan keeps it (DECL-05): each step, and the digests of what it was made
 *  from: the caller's inputs and each probe. An install names its removals `stale:<key>`. */
export function madePlan(planned: CommandPlan, inputs: Record<string, string>): MadePlan {
  const removalName = planned.command === 'install' ? (key: string) => `stale:${key}` : undefined;
  return {
    steps: planStepsOf(planned.removal, planned.wanted, removalName),
    fingerprint: { ...inputs, ...probeDigests(planned.removal, planned.wanted, removalName) },
  };
}

/** A plan shown (a dry run), refused with every diagnostic before its first write, or applied
 *  step by step in its order (status only renders its plan). */
export function applyPlanned(
  planned: CommandPlan,
  ctx: RootContext,
  options: ApplyOptions,
): Promise<RunReport> {
  const removals = new Set<PlannedStep | RemovalPlan['steps'][number]>(planned.removal.steps);
  const removing = removalApplier(ctx);
  const recording = recordingApplier(planned.wanted, ctx);
  type Step = PlannedStep | RemovalPlan['steps'][number];
  const pick = (s: Step) => (removals.has(s) ? removing : recording) as Applier<Step>;
  const applier: Applier<Step> = {
    before: (s) => pick(s).before(s),
    apply: (s, failure) => pick(s).apply(s, failure),
    after: (s, result) => pick(s).after(s, result),
    refused: refusalError,
  };
  const steps = [...planned.removal.steps, ...planned.wanted.steps];
  return applySteps({ steps, refusals: planned.diagnostics }, applier, options);
}

/** Plans what is wanted and applies it (the root half's tests, which plan no removal). */
export async function planAndApply(
  wanted: RootResource[],
  ctx: RootContext,
  options: ApplyOptions,
): Promise<RunReport> {
  const planned = await planFor('install', { wanted }, ctx, options);
  return applyPlanned(planned, ctx, options);
}
