// Runs steps in order: probe, plan, then apply unless the plan says nothing changes or this is
// a dry run. A signal is checked between steps, so an interrupted run stops at a step boundary
// and the next run continues (RERUN-04).
import { OacError } from '../errors.ts';
import type { Emit } from './events.ts';
import { changes, outcomeWithoutApply, type Action, type Step, type StepResult } from './step.ts';

export interface RunStepsOptions {
  dryRun: boolean;
  emit: Emit;
  signal?: AbortSignal;
}

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

export async function runSteps<Ctx>(
  steps: Array<Step<Ctx, never>>,
  ctx: Ctx,
  options: RunStepsOptions,
): Promise<RunReport> {
  const reports: StepReport[] = [];
  for (const step of steps as Array<Step<Ctx, unknown>>) {
    if (options.signal?.aborted)
      throw new OacError('interrupted', 'Interrupted; run the command again to continue');
    options.emit({ type: 'step-start', step: step.id, title: step.title });
    try {
      const actual = await step.probe(ctx);
      const action = step.plan(ctx, actual);
      options.emit({ type: 'step-plan', step: step.id, action });
      if (options.dryRun) {
        reports.push({ step: step.id, action });
        continue;
      }
      const result = outcomeWithoutApply(action) ?? (await step.apply(ctx, action, actual));
      options.emit({ type: 'step-done', step: step.id, result });
      reports.push({ step: step.id, action, result });
    } catch (error) {
      const code = error instanceof OacError ? error.code : 'internal';
      const message = error instanceof Error ? error.message : String(error);
      options.emit({ type: 'step-failed', step: step.id, code, message });
      throw error;
    }
  }
  return { steps: reports, changed: reports.some((r) => changes(r.action)) };
}
