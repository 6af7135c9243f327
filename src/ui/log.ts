// Log lines of the long-running node program: one line each on stderr (journald stamps them),
// always masked (SEC-03) and escaped (SEC-09): they quote Core and the node's own files.
import { printable } from './printable.ts';

export function logLine(line: string): void {
  process.stderr.write(`${printable(line)}\n`);
}
