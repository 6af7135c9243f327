// Applying a plan (docs/design.md "Shape"): a dry run shows every step; a refused plan stops with
// every refusal and changes nothing; otherwise each planned action is applied in order, each
// step between its step-start and its step-done or step-failed event. A signal stops at a step
// boundary (RERUN-04): the abort's reason is the error it stops with. The core renders no
// message: a refused plan's error is its applier's to make. What a step records is the caller's
// (the installation's journal): the core calls it just before and just after each action.
import type { Emit } from './events.ts';
import type { Plan, PlannedStep } from './plan.ts';
import {
  changes,
  outcomeWithoutApply,
  shownAction,
  type Action,
  type Refusal,
  type StepResult,
} from './step.ts';
import { step } from './run-step.ts';

export { step } from './run-step.ts';

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

export interface ApplyOptions {
  dryRun: boolean;
  emit: Emit;
  /** Stops the run before its next step; its reason (an Error) is what the run throws. */
  signal?: AbortSignal;
}

export interface Applier<S extends PlannedStep> {
  /** Just before the action: 'deferred' when another step makes the resource (the node half's,
   *  made by the node step), and this step reports nothing of its own. */
  before(step: S): Promise<'apply' | 'deferred'>;
  /** The action itself (the driver's apply); `failure`: a step before it failed (a settling
   *  step's only, src/core/driver.ts). */
  apply(step: S, failure?: unknown): Promise<StepResult>;
  /** Just after it, with its result. */
  after(step: S, result: StepResult): Promise<void>;
  /** The error a refused plan stops with, made of its refusals (the domain renders them). */
  refused(refusals: readonly Refusal[]): Error;
}

/** A plan shown (a dry run), refused with every refusal, or applied step by step. */
export async function applySteps<S extends PlannedStep>(
  planned: Plan<S>,
  applier: Applier<S>,
  options: ApplyOptions,
): Promise<RunReport> {
  if (planned.refusals.length > 0 || options.dryRun) {
    // A dry run shows every step; a refused run only the steps that refuse.
    const shown = options.dryRun ? planned.steps : planned.steps.filter((p) => p.action.refusals);
    showPlan(shown, options.emit, options.dryRun);
    if (planned.refusals.length > 0) throw applier.refused(planned.refusals);
    return reportOf(planned.steps.map(({ resource, action }) => ({ step: resource.key, action })));
  }
  const reports: StepReport[] = [];
  let failed: { error: unknown } | undefined;
  for (const next of planned.steps) {
    if (failed !== undefined && !settlesAfter(next, options.signal)) continue;
    try {
      if (failed === undefined) options.signal?.throwIfAborted();
      await step(next.resource, options.emit, async () => {
        const { resource: r, action } = next;
        options.emit({ type: 'step-plan', step: r.key, action: shownAction(action) });
        const report: StepReport = { step: r.key, action };
        reports.push(report);
        if ((await applier.before(next)) === 'deferred') return undefined;
        const result = outcomeWithoutApply(action) ?? (await applier.apply(next, failed?.error));
        report.result = result;
        await applier.after(next, result);
        return result;
      });
    } catch (error) {
      // The first failure stops the run; a settling step's own error replaces it.
      failed = { error };
    }
  }
  if (failed !== undefined) throw failed.error;
  return reportOf(reports);
}

/** After a failure, only a settling step that has something to do runs, and none once the run
 *  was interrupted. */
function settlesAfter(next: PlannedStep, signal: AbortSignal | undefined): boolean {
  if (next.resource.settles !== true || signal?.aborted === true) return false;
  return outcomeWithoutApply(next.action) === undefined;
}

function reportOf(steps: StepReport[]): RunReport {
  return { steps, changed: steps.some((r) => changes(r.action)) };
}

/** A dry run, or a refused plan: each step with its action; a refused one as failed. A dry run
 *  shows a step's parts too, each as a row of its own under the step's phase. */
function showPlan(steps: PlannedStep[], emit: Emit, withParts: boolean): void {
  for (const { resource: r, action } of steps) {
    emit({ type: 'step-start', step: r.key, title: r.title, phase: r.phase });
    emit({ type: 'step-plan', step: r.key, action: shownAction(action) });
    for (const refusal of action.refusals ?? [])
      emit({ type: 'step-failed', step: r.key, ...refusal });
    if (!withParts) continue;
    for (const part of action.parts ?? []) {
      const step = `${r.key}:${part.step}`;
      emit({ type: 'step-start', step, title: part.title, phase: r.phase });
      emit({ type: 'step-plan', step, action: shownAction(part.action) });
    }
  }
}
