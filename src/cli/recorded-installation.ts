// Which installation `status` and `uninstall` act on (issue #25 item 2): the one named with
// --installation-id, or else the one this host records, so `sudo oac-node status` works as the
// hints say. A host that records several must be told which; one that records none has nothing
// to act on. The IDs come from the record file names, which only a valid ID passes (SEC-10).
import { UsageError } from '../errors.ts';
import { readdir } from '../host/dir.ts';
import type { Host } from '../host/host.ts';
import { JOURNAL_DIR, journalIds, parseInstallationId, type InstallationId } from '../layout.ts';
import { message, oacError } from '../messages.ts';

/** The named installation's ID, or the recorded one's; `exitCode` is the status of "this host
 *  records none". Read the records only as root (they are root's). */
export async function namedOrRecordedId(
  named: string | undefined,
  host: Host,
  exitCode: number,
): Promise<InstallationId> {
  if (named !== undefined) return parseInstallationId(named);
  const ids = journalIds(await readdir(host, JOURNAL_DIR)).sort();
  const [only] = ids;
  if (ids.length === 1 && only !== undefined) return only;
  if (ids.length === 0) throw oacError('nothing_installed', {}, { exitCode });
  throw new UsageError(message('installation_id_choose', { ids: ids.join(', ') }));
}
