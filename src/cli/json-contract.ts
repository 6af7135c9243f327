// FLEET-02 (docs/automation.md): what automation reads from `--json`, kept stable. The first
// event names the format, so a reader can refuse one it does not know; the last is the summary
// (or an `error` event). A field is only ever added within a format, never renamed or removed.
import { VERSION } from '../version.ts';

export const JSON_FORMAT = 1;

/** The first `--json` event of install and uninstall. */
export function startEvent(command: 'install' | 'uninstall', dryRun: boolean) {
  return { type: 'start', format: JSON_FORMAT, command, version: VERSION, dry_run: dryRun };
}
