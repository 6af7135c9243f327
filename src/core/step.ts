// The action and outcome vocabulary (docs/architecture.md) that every driver answers in
// (src/resources/driver.ts) and the UI, --json and the journal all use.
import { z } from 'zod';

export const OUTCOMES = [
  'created',
  'adopted',
  'updated',
  'replaced',
  'removed',
  'kept',
  'unchanged',
  'skipped',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** What a step would do: the line `--dry-run` prints for it. */
export const ACTION_KINDS = [
  'create',
  'adopt',
  'update',
  'replace',
  'unchanged',
  'remove',
  'keep',
  'skip',
  'refuse',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** One reason a plan cannot be applied: what an OacError would carry. */
export const REFUSAL = z.strictObject({
  code: z.string(),
  message: z.string(),
  hint: z.string().optional(),
});
export type Refusal = z.infer<typeof REFUSAL>;

/** An action's shape (issue #38: defined once; the events, `--json`, saved plans and the node
 *  half's answer derive from it). */
export const ACTION = z.strictObject({
  kind: z.enum(ACTION_KINDS),
  /** One line naming the resource and, when something changes, what. */
  detail: z.string(),
  /** What differs, said of the host rather than of the fix (status prints it as drift). */
  why: z.string().optional(),
  /** Kind `refuse`: why the run must not go on (issue #23: refusals are plan data, found
   *  before the first write, every one of them listed). */
  refusals: z.array(REFUSAL).optional(),
});
/** A step of a plan made of others' (root's node step, whose steps the node half plans as
 *  oac-node: issue #38): each part comes to root as data, and a dry run shows it as a row of its
 *  own (`<step>:<part>`). Never part of an event: the parts are shown as events of their own. */
export type Action = z.infer<typeof ACTION> & { parts?: ActionPart[] };

export const ACTION_PART = z.strictObject({
  step: z.string(),
  title: z.string(),
  /** One level only: a part has no parts of its own. */
  action: ACTION,
});
export type ActionPart = z.infer<typeof ACTION_PART>;

/** An action as a plan holds it: with its parts, if any. */
export const PLANNED_ACTION = ACTION.extend({ parts: z.array(ACTION_PART).optional() });

/** The action as an event carries it: without its parts (each is an event of its own). */
export function shownAction({ parts: _parts, ...action }: Action): z.infer<typeof ACTION> {
  return action;
}

/** A diff's answer when the host holds something the run must not touch or go past. */
export function refuse(error: Refusal): Action {
  const refusal: Refusal = {
    code: error.code,
    message: error.message,
    ...(error.hint === undefined ? {} : { hint: error.hint }),
  };
  return { kind: 'refuse', detail: refusal.message, refusals: [refusal] };
}

export const STEP_RESULT = z.strictObject({ outcome: z.enum(OUTCOMES), detail: z.string() });
export type StepResult = z.infer<typeof STEP_RESULT>;

/** Whether a plan changes the host (terraform's -detailed-exitcode: 2 when it would). */
export function changes(action: Action): boolean {
  return (
    action.kind !== 'unchanged' &&
    action.kind !== 'keep' &&
    action.kind !== 'skip' &&
    action.kind !== 'refuse'
  );
}

/** The outcome of a plan that needs no apply. */
export function outcomeWithoutApply(action: Action): StepResult | undefined {
  if (action.kind === 'unchanged') return { outcome: 'unchanged', detail: action.detail };
  if (action.kind === 'keep') return { outcome: 'kept', detail: action.detail };
  if (action.kind === 'adopt') return { outcome: 'adopted', detail: action.detail };
  if (action.kind === 'skip') return { outcome: 'skipped', detail: action.detail };
  return undefined;
}
