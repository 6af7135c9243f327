// What the uninstall steps share. Uninstall is the install engine with less wanted: each step
// removes a resource only when the journal says the installer created it (`owned`) and keeps
// everything else, saying so (UNI-02, UNI-03, UNI-06).
import type { Journal } from '../records/journal.ts';
import type { Emit } from '../src/engine/events.ts';
import type { Host } from '../src/host/host.ts';

export interface UninstallContext {
  host: Host;
  installationId: string;
  journal: Journal;
  emit: Emit;
  /** Other installations recorded on this host: the account and home stay while any remain. */
  otherInstallations: number;
  /** Core confirmed the node's removal (or it never registered): the microsandbox store may go
   *  (UNI-05). False under --force. */
  coreConfirmed: boolean;
  /** No record of this installation was found: only what is provably ours is removed. */
  recordMissing: boolean;
  /** Lines for the summary: what was kept, and the command that removes it. */
  kept: string[];
}

export function owned(ctx: UninstallContext, id: string): boolean {
  const ownership = ctx.journal.get(id)?.ownership;
  // Intended: a run stopped right after (or before) creating it; removing an absent thing is a no-op.
  return ownership === 'owned' || ownership === 'intended';
}
