// The action and outcome vocabulary (STYLE.md point 4) that the UI, --json and the journal all
// use, and the step shape of the node half (`oac-node _prepare`, src/agent/prepare*.ts): each
// step probes, plans purely from what it found, and applies the plan. Root's resources use the
// same vocabulary through their drivers (src/engine/driver.ts).

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
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export interface Action {
  kind: ActionKind;
  /** One line naming the resource and, when something changes, what. */
  detail: string;
  /** What differs, said of the host rather than of the fix (status prints it as drift). */
  why?: string;
}

export interface StepResult {
  outcome: Outcome;
  detail: string;
}

export interface Step<Ctx, Actual = unknown> {
  id: string;
  title: string;
  probe(ctx: Ctx): Promise<Actual>;
  /** Pure: no host access, no clock, no randomness (unit-tested without a host). */
  plan(ctx: Ctx, actual: Actual): Action;
  apply(ctx: Ctx, action: Action, actual: Actual): Promise<StepResult>;
}

/** Whether a plan changes the host (terraform's -detailed-exitcode: 2 when it would). */
export function changes(action: Action): boolean {
  return action.kind !== 'unchanged' && action.kind !== 'keep' && action.kind !== 'skip';
}

/** The outcome of a plan that needs no apply. */
export function outcomeWithoutApply(action: Action): StepResult | undefined {
  if (action.kind === 'unchanged') return { outcome: 'unchanged', detail: action.detail };
  if (action.kind === 'keep') return { outcome: 'kept', detail: action.detail };
  if (action.kind === 'adopt') return { outcome: 'adopted', detail: action.detail };
  if (action.kind === 'skip') return { outcome: 'skipped', detail: action.detail };
  return undefined;
}
