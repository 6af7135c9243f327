// UPG-02, issue #38: an upgrade rolls back by itself, as a step of the plan. Before a run
// replaces the node program, the program it replaces is kept (./previous-program.ts) until the
// new one is ready. This kind is the step that settles it, planned last whenever a program is
// kept (by this plan, or by an earlier run that did not finish), and shown in a dry run: it
// waits until Core lists the node ready on the new program, then drops the kept one. It is a
// settling step (src/core/driver.ts): it also runs when a step before it fails. If the new
// program's service does not become ready (it exits, or Core never lists it ready within the
// wait), or a step failed after the program was replaced, the kept program is put back (one
// rename), the journal's records of the program and the service are what they were before the
// attempt, the service restarts on it, and the run waits until Core lists the node ready again,
// then stops naming what failed. A failure before the program was replaced only drops the kept
// one. An interruption is the operator's: nothing settles, the next run decides. Each write is
// ordered so that a run killed anywhere converges on the next: the service's record owes a
// restart before the program is swapped back, and a kept program recorded and present is the
// roll back's source for any later run.
import { z } from 'zod';
import type { StepResult } from '../core/step.ts';
import type { Journal, JournalResource } from '../../records/journal.ts';
import { sha256FileIfExists } from '../host/files.ts';
import { mustSystemctl, unitRun } from '../host/systemd.ts';
import { oacError } from '../messages.ts';
import type { Driver } from '../resources/driver.ts';
import { RESTART_OWED } from '../resources/drivers/service.ts';
import { defineKind } from '../resources/kind.ts';
import { KEYS } from '../resources/keys.ts';
import { UPGRADE_ROLLBACK_RESOURCE, type UpgradeRollbackResource } from '../resources/resources.ts';
import { isVersion } from '../version.ts';
import type { InstallContext, RootContext } from './root-context.ts';

export const UPGRADE_ROLLBACK_ACTUAL = z.strictObject({
  /** A program an earlier run kept is recorded and still there. */
  pending: z.boolean(),
});
export type UpgradeRollbackActual = z.infer<typeof UPGRADE_ROLLBACK_ACTUAL>;

export const upgradeRollbackDriver: Driver<
  'upgrade-rollback',
  UpgradeRollbackActual,
  InstallContext
> = {
  probe: async (_r, ctx) => ({ pending: (await pendingAttempt(ctx)) !== undefined }),
  exists: (a) => a.pending,
  diff(r, a, planned) {
    const keeps = planned.get(KEYS.previousProgram)?.kind === 'create';
    if (!keeps && !a.pending) return { kind: 'skip', detail: 'no upgrade to settle' };
    return { kind: 'update', detail: settleLine(r) };
  },
  // After a failed step, what it does is its result and the failure stays the run's error
  // (said once); a roll back stops with its own error, which names the failure.
  async apply(r, _action, _actual, ctx, failure) {
    const attempt = await pendingAttempt(ctx);
    if (attempt === undefined) return { outcome: 'skipped', detail: 'no kept program to settle' };
    if (failure !== undefined) return undoAttempt(ctx, attempt, failure);
    try {
      await waitForReady(ctx, r);
    } catch (error) {
      if (ctx.signal?.aborted === true) throw error;
      await undoAttempt(ctx, attempt, error);
      throw error;
    }
    await dropPreviousProgram(ctx);
    const version = r.version === undefined ? 'the new program' : `oac-node ${r.version}`;
    return { outcome: 'updated', detail: `${version} ready; the kept program removed` };
  },
  remove: () => Promise.resolve({ outcome: 'skipped', detail: 'an upgrade settled' }),
};

export const upgradeRollbackKind = defineKind({
  kind: 'upgrade-rollback',
  desired: UPGRADE_ROLLBACK_RESOURCE,
  recorded: false,
  driver: upgradeRollbackDriver,
  actual: UPGRADE_ROLLBACK_ACTUAL,
  name: (r) => `roll back to ${r.path}`,
});

function settleLine(r: UpgradeRollbackResource): string {
  const version = r.version === undefined ? 'the new program' : `oac-node ${r.version}`;
  return `wait until Core lists the node ready on ${version}, then remove the kept program; if it is not ready, put the kept one back and restart ${r.unit}`;
}

/** The new program's service run, watched while Core is asked: if it stops, the wait ends. */
async function waitForReady(ctx: InstallContext, r: UpgradeRollbackResource): Promise<void> {
  const run = await unitRun(ctx.host, r.unit);
  await readyWait(ctx)(
    run === undefined ? undefined : { unit: r.unit, invocation: run.invocation },
  );
}

/** How this run waits for Core's "connected and ready" (the installer gives it). */
function readyWait(ctx: InstallContext): NonNullable<InstallContext['ready']> {
  if (ctx.ready === undefined)
    throw new Error('an install that replaces the program waits for Core');
  return ctx.ready;
}

/** What a roll back restores: the journal's records from before the attempt. */
export interface Attempt {
  program: JournalResource;
  service: JournalResource | undefined;
}

/** The attempt's kept program, if a run (this one, or one killed before it finished) left one:
 *  recorded, and still there. */
export async function pendingAttempt(ctx: RootContext): Promise<Attempt | undefined> {
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
 *  replaced (its node half, unit or service failed with the new one, or it never became ready;
 *  the roll back throws its own error), else the kept one simply goes. */
async function undoAttempt(
  ctx: InstallContext,
  attempt: Attempt,
  error: unknown,
): Promise<StepResult> {
  if (!(error instanceof Error)) return { outcome: 'skipped', detail: 'the kept program stays' };
  const program = ctx.journal.get(KEYS.program);
  if (program?.props.sha256 === attempt.program.props.sha256) {
    await dropPreviousProgram(ctx);
    return { outcome: 'removed', detail: 'the kept program (the program was not replaced)' };
  }
  return rollBack(ctx, attempt, error);
}

/** The new program is ready (or was never put in place): the kept one goes. */
async function dropPreviousProgram(ctx: RootContext): Promise<void> {
  if (ctx.journal.get(KEYS.previousProgram) === undefined) return;
  await ctx.host.unlinkFile(ctx.layout.previousProgram);
  await ctx.journal.forget(KEYS.previousProgram);
}

/** Puts the kept program back and restarts the service on it, then waits for Core. Throws the
 *  run's error: rolled back (with what failed), or the roll back's own failure. */
async function rollBack(
  ctx: InstallContext,
  attempt: Attempt,
  failure: Error,
): Promise<StepResult> {
  const { host, layout, journal } = ctx;
  const failed = versionOf(journal.get(KEYS.program)) ?? 'the new program';
  const previous = versionOf(attempt.program) ?? 'the previous program';
  // Only the program the record names goes back (a kept file changed since is not trusted).
  const keptSha = await sha256FileIfExists(host.path(layout.previousProgram));
  if (keptSha === undefined || keptSha !== attempt.program.props.sha256)
    return {
      outcome: 'skipped',
      detail: 'the kept program changed since it was kept: not put back',
    };
  await owesRestart(journal);
  await host.renameFile(layout.previousProgram, layout.program);
  await journal.record(KEYS.program, attempt.program);
  await journal.forget(KEYS.previousProgram);
  await mustSystemctl(host, ['restart', layout.unitName]);
  try {
    await readyWait(ctx)(undefined);
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
