// Uninstall is reconcile with nothing wanted (DESIGN.md "Shape"): the installation's resources
// in reverse order, each removed by its driver only when the journal says a run of this
// installation created it (`owned`, or `intended`: a run stopped around its creation). What was
// adopted is kept, and so is what the caller says must stay (another installation still uses
// it; the microsandbox store without Core's confirmation), each with its reason (UNI-02…06).
import type { Journal } from '../../records/journal.ts';
import type { DriverContext } from './driver.ts';
import { driverOf } from './drivers/index.ts';
import { stopIfAborted } from './interrupted.ts';
import { step, type ReconcileOptions } from './reconcile.ts';
import { isRecorded, nameOf, removalOf, type Resource } from './resources.ts';
import type { RunReport, StepReport } from './reconcile.ts';
import { changes, outcomeWithoutApply, type Action } from './step.ts';

export interface RemoveOptions extends ReconcileOptions {
  /** Why a resource of ours stays this run, or undefined when it may go. */
  keepReason: (r: Resource) => string | undefined;
  /** Why a resource the journal does not list is worth naming as kept (the account and home
   *  when the record is gone), or undefined to pass over it in silence. */
  unrecordedReason?: (r: Resource) => string | undefined;
}

export async function removeAll(
  resources: Resource[],
  ctx: DriverContext & { journal: Journal },
  options: RemoveOptions,
): Promise<RunReport> {
  const reports: StepReport[] = [];
  for (const r of [...resources].reverse()) {
    if (!isRecorded(r)) continue; // the node half: its removable parts are resources of their own
    stopIfAborted(options.signal);
    await step(r, options.emit, async () => {
      const driver = driverOf(r.kind);
      const recorded = ctx.journal.get(r.key)?.ownership;
      const named = recorded !== undefined || options.unrecordedReason?.(r) !== undefined;
      const actual = named ? await driver.probe(r, ctx) : undefined;
      const action = decide(r, recorded, actual !== undefined && driver.exists(actual), options);
      options.emit({ type: 'step-plan', step: r.key, action });
      const report: StepReport = { step: r.key, action };
      reports.push(report);
      if (options.dryRun) return undefined;
      const result = outcomeWithoutApply(action) ?? (await driver.remove(r, actual, ctx));
      if (result.outcome === 'removed' || (action.kind === 'skip' && recorded !== undefined))
        await ctx.journal.forget(r.key);
      report.result = result;
      return result;
    });
  }
  return { steps: reports, changed: reports.some((r) => changes(r.action)) };
}

function decide(
  r: Resource,
  recorded: string | undefined,
  exists: boolean,
  options: RemoveOptions,
): Action {
  const name = r.kind === 'account' ? `user ${r.name}` : nameOf(r);
  if (recorded === undefined) {
    const why = exists ? options.unrecordedReason?.(r) : undefined;
    if (why !== undefined) return { kind: 'keep', detail: `${name} (${why})` };
    return { kind: 'skip', detail: `${name}: not made by this installation` };
  }
  if (recorded === 'adopted')
    return { kind: 'keep', detail: `${name} (adopted: it was there before the installer)` };
  if (!exists) return { kind: 'skip', detail: `${name} absent` };
  const reason = options.keepReason(r);
  if (reason !== undefined) return { kind: 'keep', detail: `${name} (${reason})` };
  return { kind: 'remove', detail: removalOf(r) };
}
