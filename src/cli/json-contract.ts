// FLEET-02 (docs/automation.md): what automation reads from `--json`, kept stable. The first
// event names the format, so a reader can refuse one it does not know; the last is the summary
// (or an `error` event). A field is only ever added within a format, never renamed or removed.
// The documents of `status`, `bundle` and `command --json` carry the same `format` (issue #39
// item 10); docs/schema/ publishes each, open to fields added within it (src/cli/json-schemas.ts).
import { JSON_FORMAT, VERSION } from '../version.ts';
import { Redactor } from '../redact.ts';
import { printableJson } from '../ui/printable.ts';
import type { CommandDocument } from './json-schemas.ts';

export { JSON_FORMAT };

/** The first `--json` event of install and uninstall. */
export function startEvent(command: 'install' | 'uninstall', dryRun: boolean) {
  return { type: 'start', format: JSON_FORMAT, command, version: VERSION, dry_run: dryRun };
}

/** `--json` of a command that answers with one document (bundle, command). */
export const documentOption = {
  type: 'boolean',
  default: false,
  describe: 'Print one JSON document (docs/schema/)',
} as const;

/** `command --json`: the line `command` prints without --json (its line end left out), whole.
 *  Not masked: the install line carries the token by design (BOOT-05), as the text does;
 *  printableJson only escapes what a terminal would act on. */
export function commandDocument(uninstall: boolean, printed: string): CommandDocument {
  return {
    format: JSON_FORMAT,
    command: uninstall ? 'uninstall' : 'install',
    line: printed.replace(/\n$/, ''),
  };
}

/** One document as `--json` prints it: one line. */
export function documentLine(document: object): string {
  return `${printableJson(document)}\n`;
}

/** `command --json`'s document: escaped as every document is, but not masked. The line is the
 *  command's whole answer and carries the token by design (as its text does); masking a proxy
 *  password that happens to occur in it (`sudo`) would print a line that is not the one to paste
 *  (SEC-03's one exception: docs/security.md). */
export function commandDocumentLine(uninstall: boolean, printed: string): string {
  return `${printableJson(commandDocument(uninstall, printed), new Redactor())}\n`;
}
