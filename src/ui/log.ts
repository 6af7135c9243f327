// Log lines of the long-running node program: one line each on stderr (journald stamps them),
// always through the redactor (SEC-03).
import { redactor } from './redact.ts';

export function logLine(line: string): void {
  process.stderr.write(`${redactor.redact(line)}\n`);
}
