// Renders engine events: plain lines (one per step outcome, progress at most every two seconds)
// or NDJSON with --json. Every line is masked (SEC-03) and escaped (SEC-09, src/ui/printable.ts).
import type { EngineEvent } from '../engine/events.ts';
import { printable, printableJson } from './printable.ts';

export type Write = (text: string) => void;

export function jsonRenderer(write: Write): (event: EngineEvent | Record<string, unknown>) => void {
  return (event) => write(`${printableJson(event)}\n`);
}

export function plainRenderer(write: Write, dryRun: boolean): (event: EngineEvent) => void {
  let lastProgress = 0;
  const line = (text: string) => write(`${printable(text)}\n`);
  return (event) => {
    switch (event.type) {
      case 'step-plan':
        if (dryRun) line(`  ${event.action.kind.padEnd(9)} ${event.action.detail}`);
        break;
      case 'step-done':
        line(`  ${event.result.outcome.padEnd(9)} ${event.result.detail}`);
        break;
      case 'progress': {
        const now = Date.now();
        if (now - lastProgress < 2000 && event.received < event.total) break;
        lastProgress = now;
        line(`  ${event.file}: ${mib(event.received)} of ${mib(event.total)} MiB`);
        break;
      }
      case 'note':
        line(`  ${event.message}`);
        break;
      default:
        break;
    }
  };
}

function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
