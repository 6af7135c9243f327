// One step's events (docs/architecture.md): step-start, then step-done with its result or step-failed
// with the error's code, line and hint. Applying a plan runs each action in one; a probe that
// fails while planning is said as one too.
import { OacError } from '../errors.ts';
import type { Emit, EngineEvent } from './events.ts';
import type { StepResult } from './step.ts';

/** Runs one resource between its step-start and its step-done or step-failed events. */
export async function step(
  r: { key: string; title: string; phase?: string },
  emit: Emit,
  body: () => Promise<StepResult | undefined>,
): Promise<void> {
  emit({ type: 'step-start', step: r.key, title: r.title, phase: r.phase });
  try {
    const result = await body();
    if (result !== undefined) emit({ type: 'step-done', step: r.key, result });
  } catch (error) {
    emit(failedEvent(r.key, error));
    throw error;
  }
}

/** The step-failed event of `error` at `step`: an OacError's code, line and hint; anything else
 *  as internal. */
export function failedEvent(step: string, error: unknown): EngineEvent {
  const code = error instanceof OacError ? error.code : 'internal';
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof OacError ? error.hint : undefined;
  return { type: 'step-failed', step, code, message, ...(hint === undefined ? {} : { hint }) };
}
