// Renders engine events: plain lines or NDJSON with --json. On a pipe every step outcome, each
// file's start, `Resuming …` and verified end are always printed, a file's bytes at most every
// few seconds, and the wait for Core when what Core says changes or every quarter minute
// (OPS-01). Every line is masked (SEC-03) and escaped (SEC-09, src/ui/printable.ts).
import type { EngineEvent } from '../core/events.ts';
import { printable, printableJson } from './printable.ts';
import { TransferClock, describeWait } from './progress-text.ts';
import { paintStepWord } from './colour.ts';
import { forOperator } from './operator-shell.ts';

export type Write = (text: string) => void;

/** How often a pipe gets a file's bytes, and the wait's unchanged state. */
const PROGRESS_EVERY_MS = 5000;
const WAITING_EVERY_MS = 15_000;

export function jsonRenderer(write: Write): (event: EngineEvent | Record<string, unknown>) => void {
  // Hints and commands as the text says them (no sudo in a root shell: ./operator-shell.ts).
  return (event) => write(`${forOperator(printableJson(event))}\n`);
}

/** `quiet` (--quiet): only what changes (or would), no progress, waits or notes. */
export function plainRenderer(
  write: Write,
  dryRun: boolean,
  now: () => number = Date.now,
  quiet = false,
): (event: EngineEvent) => void {
  const clock = new TransferClock(now);
  const throttle = new Map<string, { at: number; text?: string }>();
  const line = (text: string) => write(`${printable(text)}\n`);
  const stepLine = (word: string, detail: string) =>
    write(`  ${paintStepWord(word, word.padEnd(9))} ${printable(detail)}\n`);
  /** Whether `key` may print again: after `everyMs`, or at once when its text changed. */
  const due = (key: string, everyMs: number, text?: string): boolean => {
    const last = throttle.get(key);
    if (last !== undefined && now() - last.at < everyMs && last.text === text) return false;
    throttle.set(key, { at: now(), text });
    return true;
  };
  return (event) => {
    switch (event.type) {
      case 'step-plan':
        if (dryRun && !(quiet && STAYS.has(event.action.kind)))
          stepLine(event.action.kind, event.action.detail);
        break;
      case 'step-done':
        if (!(quiet && STAYS.has(event.result.outcome)))
          stepLine(event.result.outcome, event.result.detail);
        break;
      default:
        if (!quiet) other(event);
        break;
    }
  };
  function other(event: EngineEvent): void {
    switch (event.type) {
      case 'progress': {
        const text = clock.describe(event);
        if (event.phase !== undefined || due(`file:${event.file}`, PROGRESS_EVERY_MS))
          line(`  ${text}`);
        if (event.phase !== undefined) throttle.set(`file:${event.file}`, { at: now() });
        break;
      }
      case 'waiting':
        if (due('waiting', WAITING_EVERY_MS, event.said)) line(`  ${describeWait(event)}`);
        break;
      case 'note':
        line(`  ${event.message}`);
        break;
      default:
        break;
    }
  }
}

/** What --quiet leaves out: the steps that change nothing. */
const STAYS = new Set(['unchanged', 'skipped', 'skip']);
