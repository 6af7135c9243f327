// The --json events of a run (docs/automation.md), as the e2e tests read them: one JSON object a
// line; a rerun of a converged host has every step `unchanged` or `skipped` and a summary that
// says `changed: false` (RERUN-01).
export interface JsonEvent {
  type: string;
  step?: string;
  result?: { outcome: string; detail?: string };
  changed?: boolean;
}

/** The events of `stdout`, in order. */
export function jsonEvents(stdout: string): JsonEvent[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as JsonEvent);
}

/** The steps that did something: every `step-done` but `unchanged` and `skipped` ones. */
export function changedSteps(events: JsonEvent[]): JsonEvent[] {
  return events.filter(
    (e) => e.type === 'step-done' && !['unchanged', 'skipped'].includes(e.result?.outcome ?? ''),
  );
}
