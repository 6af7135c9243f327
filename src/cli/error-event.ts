// OPS-02: with --json, a failed command's last event carries what the screen's last lines say:
// the code (stable, for scripts), the message and the hint. An internal error is `internal`.
import { isOacError } from '../errors.ts';

/** Errors a command already gave as its --json error event (src/cli/main.ts gives the rest). */
const reported = new WeakSet<object>();

export function wasReported(error: unknown): boolean {
  return typeof error === 'object' && error !== null && reported.has(error);
}

export function errorEvent(error: unknown): Record<string, unknown> {
  if (typeof error === 'object' && error !== null) reported.add(error);
  if (isOacError(error))
    return {
      type: 'error',
      code: error.code,
      message: error.message,
      hint: error.hint ?? null,
      // Each problem of a refused plan (plan_refused) or of a file, one per line.
      details: [...error.details],
      exit: error.exitCode,
    };
  const message = error instanceof Error ? error.message : String(error);
  return { type: 'error', code: 'internal', message, hint: null, exit: 1 };
}
