// `oac-node uninstall`: the plan with nothing wanted (uninstaller/uninstall-plan.ts: Core asked,
// at the address the node enrolled with, whether the node was removed, --force skipping the
// question; what stays decided), applied: in reverse order, the drivers remove what the journal
// says this installation created, then the record goes (or stays with a store Core has not
// confirmed: src/installation/installation-record.ts), and the summary lists what was kept
// (UNI-02…06). A refused
// plan (Core still lists the node, or cannot be asked: UNI-01) changes nothing; a dry run shows
// every step and the refusal. It can be rerun until it completes.
import { refuseCopiedNode } from '../src/installation/node-state.ts';
import { hostIdOn } from '../src/node/host-id.ts';
import { listJournals } from '../records/journal.ts';
import { withInstallerLock } from '../records/installer-lock.ts';
import { planDigest, type MadePlan, type SavedPlan } from '../src/installation/saved-plan.ts';
import type { Emit } from '../src/core/events.ts';
import { applyPlanned } from '../src/installation/plan-for.ts';
import { KEYS } from '../src/resources/keys.ts';
import type { RunReport } from '../src/installation/reconcile.ts';
import { Host } from '../src/host/host.ts';
import { layout, type InstallationId } from '../src/layout.ts';
import { planUninstallation } from './uninstall-plan.ts';

export interface UninstallRequest {
  root: string;
  installationId: InstallationId;
  force: boolean;
  dryRun: boolean;
  /** OPS-03: an interrupted uninstall stops between two resources; a rerun finishes it. */
  signal?: AbortSignal;
  /** DECL-05: a dry run whose plan the caller saves (the result's `plan`). */
  planOut?: boolean;
  /** DECL-05: `apply`: the plan must be this one, from the same inputs, or nothing changes. */
  savedPlan?: SavedPlan;
}

export interface UninstallResult {
  report: RunReport;
  kept: string[];
  /** Whether this host recorded the installation (false: only what was proved ours, if
   *  anything, was removed; a mistyped ID finds nothing). */
  recorded: boolean;
  /** The installations this host records besides this one (for the line that says the ID
   *  named none here). */
  others: string[];
  plan?: MadePlan;
  /** Issue #39: the node Core was not asked about (--force), while the record named it: Core
   *  may still list it, and this host can no longer connect as it. */
  unaskedNode?: string;
  /** The record stays for a rerun to finish (a store Core has not confirmed: UNI-05). */
  incomplete: boolean;
}

export async function uninstall(req: UninstallRequest, emit: Emit): Promise<UninstallResult> {
  const host = new Host(req.root);
  const names = layout(req.installationId);
  // Issue #40: on a copy of the node's host, Core's answer is about the original's node (which
  // the operator would then remove in Web): stop, naming --force, which asks Core nothing.
  if (!req.force) await refuseCopiedNode(host, names, await hostIdOn(host));
  return withInstallerLock(host, async () => {
    const journals = await listJournals(host);
    const mine = journals.find((j) => j.installation_id === req.installationId);
    const planned = await planUninstallation(host, names, req, { journals, mine }, emit);
    const { journal, ctx, kept, plan, saved } = planned;
    // Settled with Core (or forced): a rerun of an unfinished uninstall, or an install after
    // one, is no lost state.
    // Only for a plan that goes ahead: a refused one (Docker silent about our network) changes
    // nothing at all, the record included.
    if (mine !== undefined && !req.dryRun && plan.diagnostics.length === 0)
      await journal.setRegisteredNode(null);
    const report = await applyPlanned(plan, ctx, {
      dryRun: req.dryRun,
      emit,
      signal: req.signal,
    });
    kept.push(...keptSteps(report));
    // A plan applied once is stale afterwards: its journal goes, or records the plan.
    if (saved !== undefined && !req.dryRun && (await host.lstat(names.journal)) !== undefined)
      await journal.setLastPlan(planDigest(saved.fingerprint));
    const others = journals.flatMap((j) =>
      j.installation_id === names.id ? [] : [j.installation_id],
    );
    const unasked = req.force ? (mine?.registered_node ?? undefined) : undefined;
    return {
      report,
      kept,
      recorded: mine !== undefined,
      others,
      ...(saved === undefined ? {} : { plan: saved }),
      ...(unasked === undefined ? {} : { unaskedNode: unasked }),
      incomplete: report.steps.some((s) => s.step === KEYS.record && s.result?.outcome === 'kept'),
    };
  });
}

function keptSteps(report: RunReport): string[] {
  return report.steps.flatMap((s) => (s.action.kind === 'keep' ? [s.action.detail] : []));
}
