// UPG-01: an older line pasted after a newer one (from a shell's history, an old runbook) does
// not silently put an older program in place of the newer one the journal records: it says so
// and stops, before anything is read from Core or written, unless the operator asks for exactly
// that (--allow-downgrade).
import type { Journal } from '../records/journal.ts';
import { KEYS } from '../src/installation/desired.ts';
import { oacError } from '../src/messages.ts';
import { compareVersions, VERSION } from '../src/version.ts';

export function refuseDowngrade(journal: Journal, allowed: boolean): void {
  if (allowed) return;
  const recorded = journal.get(KEYS.program)?.props.version;
  if (typeof recorded !== 'string') return;
  // Not a version (a record from before versions were kept holds none): nothing to compare.
  if ((compareVersions(recorded, VERSION) ?? 0) <= 0) return;
  throw oacError('downgrade_refused', { theirs: recorded, ours: VERSION });
}
