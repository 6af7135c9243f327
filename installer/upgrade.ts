// UPG-02: an upgrade rolls back by itself. Before a run replaces the node program, the program
// it replaces is kept (a step of the plan: src/installation/previous-program.ts, a hard link
// beside it, recorded in the journal with its SHA-256 and version) until the new one is ready.
// If the new program's service does not become ready (it exits, or Core never lists it ready
// within the wait), the kept program is put back (one rename), the journal's records of the
// program and the service are what they were before the attempt, the service restarts on it,
// and the run waits until Core lists the node ready again, then exits non-zero naming what
// failed. Each step is ordered so that a run killed anywhere
// converges on the next: the service's record owes a restart before the program is swapped
// back, and a kept program recorded and present is the roll back's source for any later run.
import type { Journal, JournalResource } from '../records/journal.ts';
import { KEYS } from '../src/installation/desired.ts';
import { oacError } from '../src/messages.ts';
import { RESTART_OWED } from '../src/resources/drivers/service.ts';
import { mustSystemctl } from '../src/host/systemd.ts';
import type { InstallContext } from './install-context.ts';
import { sha256FileIfExists } from '../src/host/files.ts';
import { isVersion } from '../src/version.ts';

/** What a roll back restores: the journal's records from before the attempt. */
export interface Attempt {
  program: JournalResource;
  service: JournalResource | undefined;
}

/** The attempt's kept program, if a run (this one, or one killed before it finished) left one:
 *  recorded, and still there. */
export async function pendingAttempt(ctx: InstallContext): Promise<Attempt | undefined> {
  const kept = ctx.journal.get(KEYS.previousProgram);
  if (kept === undefined || (await ctx.host.lstat(ctx.layout.previousProgram)) === undefined)
    return undefined;
  const { service_inputs: inputs, ...props } = kept.props;
  const service = ctx.journal.get(KEYS.service);
  return {
    program: { ...kept, name: ctx.layout.program, props },
    service:
      service === undefined || typeof inputs !== 'string'
        ? undefined
        : { ...service, props: { ...service.props, inputs } },
  };
}

/** A run that failed after keeping the program: rolled back when the program was already
 *  replaced (its node half, unit or service failed with the new one), else the kept one simply
 *  goes. An interruption is the operator's: the next run decides. */
export async function undoAttempt(
  ctx: InstallContext,
  attempt: Attempt | undefined,
  error: unknown,
  aborted: boolean,
  waitReady: () => Promise<unknown>,
): Promise<never> {
  if (attempt === undefined || aborted || !(error instanceof Error)) throw error;
  const program = ctx.journal.get(KEYS.program);
  if (program?.props.sha256 === attempt.program.props.sha256) {
    await dropPreviousProgram(ctx);
    throw error;
  }
  return rollBack(ctx, attempt, error, waitReady);
}

/** The new program is ready: the kept one goes. */
export async function dropPreviousProgram(ctx: InstallContext): Promise<void> {
  if (ctx.journal.get(KEYS.previousProgram) === undefined) return;
  await ctx.host.unlinkFile(ctx.layout.previousProgram);
  await ctx.journal.forget(KEYS.previousProgram);
}

/** Puts the kept program back and restarts the service on it; `waitReady` then waits for Core.
 *  Throws the run's error: rolled back (with what failed), or the roll back's own failure. */
export async function rollBack(
  ctx: InstallContext,
  attempt: Attempt,
  failure: Error,
  waitReady: () => Promise<unknown>,
): Promise<never> {
  const { host, layout, journal } = ctx;
  const failed = versionOf(journal.get(KEYS.program)) ?? 'the new program';
  const previous = versionOf(attempt.program) ?? 'the previous program';
  // Only the program the record names goes back (a kept file changed since is not trusted).
  const keptSha = await sha256FileIfExists(host.path(layout.previousProgram));
  if (keptSha === undefined || keptSha !== attempt.program.props.sha256) throw failure;
  ctx.emit({ type: 'step-start', step: 'rollback', title: `Roll back to oac-node ${previous}` });
  await owesRestart(journal);
  await host.renameFile(layout.previousProgram, layout.program);
  await journal.record(KEYS.program, attempt.program);
  await journal.forget(KEYS.previousProgram);
  await mustSystemctl(host, ['restart', layout.unitName]);
  try {
    await waitReady();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw oacError('rollback_not_ready', {
      failed,
      why: failure.message,
      previous,
      again: why,
      unit: layout.unitName,
    });
  }
  // Ready again on the program it ran before: the service's record is the one from before.
  if (attempt.service !== undefined) await journal.record(KEYS.service, attempt.service);
  ctx.emit({
    type: 'step-done',
    step: 'rollback',
    result: { outcome: 'updated', detail: `oac-node ${previous} restored and ready` },
  });
  throw oacError('upgrade_rolled_back', {
    failed,
    why: failure.message,
    previous,
    unit: layout.unitName,
  });
}

function versionOf(entry: JournalResource | undefined): string | undefined {
  const version = entry?.props.version;
  return typeof version === 'string' && isVersion(version) ? version : undefined;
}

/** A run killed from here on restarts the service (whatever program is then in place). */
async function owesRestart(journal: Journal): Promise<void> {
  const service = journal.get(KEYS.service);
  if (service === undefined) return;
  await journal.record(KEYS.service, {
    ...service,
    props: { ...service.props, inputs: RESTART_OWED },
  });
}
