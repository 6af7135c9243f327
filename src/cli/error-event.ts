// OPS-02: with --json, a failed command's last event carries what the screen's last lines say:
// the code (stable, for scripts), the message and the hint. An internal error is `internal`.
// Issue #39 item 10: the same words as the screen's, commands included: in a root shell a
// hint's `sudo oac-node …` is `oac-node …` in both (src/ui/operator-shell.ts), not only on the
// screen (src/ui/render-error.ts renders the text through the same forOperator).
import { isOacError } from '../errors.ts';
import { forOperator } from '../ui/operator-shell.ts';

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
      message: forOperator(error.message),
      hint: error.hint === undefined ? null : forOperator(error.hint),
      // Each problem of a refused plan (plan_refused) or of a file, one per line.
      details: error.details.map((detail) => forOperator(detail)),
      exit: error.exitCode,
    };
  const message = error instanceof Error ? error.message : String(error);
  return { type: 'error', code: 'internal', message, hint: null, exit: 1 };
}
