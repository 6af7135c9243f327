// What the other installations on this host record (issue #23): a resource is the same one when
// its kind and name are (the account `oac-node`, the home, the group membership); keys are not
// enough, since every installation has a `program` of its own. Uninstall keeps what another
// record still lists, whatever its ownership there: a record left by another installation (one
// Core per host, HOST-10, so install refuses to add a second) only ever adds what stays.
import type { JournalData } from './journal.ts';

export interface Elsewhere {
  /** Another installation's record lists it. */
  wants(kind: string, name: string): boolean;
}

export function elsewhereOf(others: JournalData[]): Elsewhere {
  const listed = new Set<string>();
  for (const journal of others)
    for (const entry of Object.values(journal.resources))
      listed.add(identityOf(entry.kind, entry.name));
  return { wants: (kind, name) => listed.has(identityOf(kind, name)) };
}

function identityOf(kind: string, name: string): string {
  return `${kind} ${name}`;
}
