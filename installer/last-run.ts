// What the last run did, kept for the operator after the first week (issue #39 item 6): the
// record notes the run that changed the host (install, rerun, upgrade or roll back, with the
// program's version before and after), and the run's own events are kept root-only beside it in
// /var/log/oac-node, so `status` can say when the host last changed, by what, and where the
// whole story is. A run that changed nothing writes neither (RERUN-01: a no-op rerun writes
// nothing). The events are the --json contract's (docs/automation.md): they carry no token, no
// credential and no proxy password (SEC-03).
import type { Journal, LastRun } from '../records/journal.ts';
import { isOacError } from '../src/errors.ts';
import { oacError } from '../src/messages.ts';
import type { Host } from '../src/host/host.ts';
import { KEYS } from '../src/installation/desired.ts';
import { RUN_LOG_DIR, type Layout } from '../src/layout.ts';
import { VERSION, compareVersions } from '../src/version.ts';

/** At most this much of a run's events is kept: the end of the run, where a failure is. */
export const RUN_LOG_MAX_BYTES = 256 * 1024;

export interface RunStart {
  /** The record held no resource before this run: a first install. */
  fresh: boolean;
  /** The program's recorded version before the run. */
  before: string | null;
}

export function runStart(journal: Journal): RunStart {
  return {
    fresh: Object.keys(journal.snapshot.resources).length === 0,
    before: programVersion(journal),
  };
}

/** Notes the run in the record, when it changed something or failed after writing: whether it
 *  did (the caller then keeps the run's events: keepRunLog). Best effort: a note that cannot be
 *  written (the disk that failed the run is full) never takes the place of the run's own error
 *  or outcome. */
export async function noteLastRun(
  journal: Journal,
  start: RunStart,
  end: { changed: boolean; error?: unknown },
): Promise<boolean> {
  return writeLastRun(journal, start, end).catch(() => false);
}

async function writeLastRun(
  journal: Journal,
  start: RunStart,
  end: { changed: boolean; error?: unknown },
): Promise<boolean> {
  if (!end.changed && end.error === undefined) return false;
  const after = programVersion(journal);
  const rolledBack = isOacError(end.error) && end.error.code === 'upgrade_rolled_back';
  const moved = start.before !== null && after !== null && after !== start.before;
  const run: LastRun['run'] = rolledBack
    ? 'roll back'
    : start.fresh
      ? 'install'
      : moved
        ? (compareVersions(after, start.before ?? after) ?? 1) < 0
          ? 'downgrade'
          : 'upgrade'
        : 'rerun';
  // A roll back put the kept program back: the version it replaced is the one this run tried
  // (this installer's own, the program it installs).
  const from =
    run === 'roll back' ? VERSION : run === 'upgrade' || run === 'downgrade' ? start.before : null;
  await journal.setLastRun({
    at: new Date().toISOString(),
    run,
    version: after,
    from,
    outcome: end.error === undefined ? 'done' : 'failed',
  });
  return true;
}

function programVersion(journal: Journal): string | null {
  const version = journal.get(KEYS.program)?.props.version;
  return typeof version === 'string' ? version : null;
}

/** The run's events as JSON lines, the last RUN_LOG_MAX_BYTES of them, root's alone. */
export async function keepRunLog(host: Host, names: Layout, lines: readonly string[]) {
  let kept = 0;
  let from = lines.length;
  while (from > 0 && kept + Buffer.byteLength(lines[from - 1] ?? '') <= RUN_LOG_MAX_BYTES)
    kept += Buffer.byteLength(lines[--from] ?? '');
  await host.ensureDirectory(RUN_LOG_DIR, 0o700);
  // Made by someone else before (on some systems /var/log is a group's to write), a link, or
  // open to others: whoever could write it could swap what status tells root to read.
  const dir = await host.lstat(RUN_LOG_DIR);
  if (dir?.isDirectory() !== true || dir.uid !== 0 || (dir.mode & 0o022) !== 0)
    throw oacError('run_log_unsafe', { path: RUN_LOG_DIR });
  // The last line whole, however long: the end of the run is the part to keep.
  const tail = lines.slice(Math.min(from, Math.max(lines.length - 1, 0))).join('');
  await host.writeFile(names.lastRunLog, tail, 0o600);
}
