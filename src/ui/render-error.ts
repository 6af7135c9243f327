// The CLI's last word on a failure: one line naming what to fix, the lines of its details (a
// file's problems), then an optional hint. Every line is masked (SEC-03) and has its control
// characters escaped (SEC-09): messages carry text from Core and from files the node account
// writes. Internal errors (bugs) add their stack so they can be reported: the message as one
// escaped line (a library's message may quote Core's body, line breaks and all), then the
// stack's own frames.
import { isOacError } from '../errors.ts';
import { printable } from './printable.ts';
import { forOperator } from './operator-shell.ts';
import { paintErrorLine, paintHintLabel } from './colour.ts';

const INTERNAL = 'oac-node: internal error (please report it):';
/** Issue #40: what to attach to the report, a bundle that holds no secret (docs/support.md). */
const report = (): string =>
  forOperator('  Attach a support bundle to the report: sudo oac-node diagnose (docs/support.md)');

export function renderError(error: unknown): string {
  if (isOacError(error)) {
    const lines = [paintErrorLine(`oac-node: ${printable(error.message)}`)];
    // Each detail is one line of its own: a line break inside one is escaped like any other.
    for (const detail of error.details) lines.push(`  ${printable(detail)}`);
    if (error.hint !== undefined)
      lines.push(`  ${paintHintLabel('hint:')} ${printable(error.hint)}`);
    return lines.join('\n');
  }
  if (!(error instanceof Error)) return `${INTERNAL}\n${printable(String(error))}\n${report()}`;
  const frames = (error.stack ?? '').split('\n').filter((line) => /^ {4}at /.test(line));
  const detail = [`${error.name}: ${error.message}`, ...frames];
  return `${INTERNAL}\n${detail.map(printable).join('\n')}\n${report()}`;
}
