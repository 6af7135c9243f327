// The CLI's last word on a failure: one line naming what to fix, then an optional hint. Every
// line passes through the redactor (SEC-03). Internal errors (bugs) add their stack so they can
// be reported, still redacted.
import { isOacError } from '../errors.ts';
import { redactor } from './redact.ts';

export function renderError(error: unknown): string {
  if (isOacError(error)) {
    const lines = [`oac-node: ${error.message}`];
    if (error.hint !== undefined) lines.push(`  hint: ${error.hint}`);
    return redactor.redact(lines.join('\n'));
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return redactor.redact(`oac-node: internal error (please report it):\n${detail}`);
}
