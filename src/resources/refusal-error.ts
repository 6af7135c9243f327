// A refused plan's error (issue #23): the reconcile core hands a refused plan's refusals to its
// applier, which makes this error of them; the core itself renders no message
// (docs/architecture.md "Errors").
import { OacError } from '../errors.ts';
import { oacError } from '../messages.ts';
import type { Refusal } from '../core/step.ts';

/** The error a refused plan stops with: a single refusal as itself (its code, line and hint),
 *  several as one line with each of them below it. */
export function refusalError(refusals: readonly Refusal[]): OacError {
  const [first] = refusals;
  if (first === undefined) throw new Error('a plan without refusals is not refused');
  if (refusals.length === 1) return new OacError(first.code, first.message, hintOf(first.hint));
  return oacError(
    'plan_refused',
    { count: refusals.length },
    {
      details: refusals.map((r) => (r.hint === undefined ? r.message : `${r.message} (${r.hint})`)),
    },
  );
}

function hintOf(hint: string | undefined): { hint?: string } {
  return hint === undefined ? {} : { hint };
}
