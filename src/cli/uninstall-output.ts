// An uninstall's run and what it shows (the uninstall command and `apply`): plain lines or
// NDJSON, the outcome in words that claim no more than the run did, what was kept, the saved
// plan.
import {
  uninstall,
  type UninstallRequest,
  type UninstallResult,
} from '../../uninstaller/uninstall.ts';
import { writePlanFile } from '../installation/plan-file.ts';
import { PLAN_FORMAT, shownEvents } from '../installation/saved-plan.ts';
import type { EngineEvent } from '../core/events.ts';
import { ExitStatus, EXIT } from '../errors.ts';
import { printable } from '../ui/printable.ts';
import { planSavedLine } from '../ui/plan-saved.ts';
import { jsonRenderer, plainRenderer } from '../ui/render-events.ts';
import { startEvent } from './json-contract.ts';
import { errorEvent } from './error-event.ts';
import { interruptOnSignals } from './interrupt.ts';

/** What a terminal shows of an uninstall, in the order it removes (the resources' groups, the
 *  reverse of the install's: installer/install.ts INSTALL_PHASES). */
export const UNINSTALL_PHASES = [
  { id: 'service', title: 'Stop and disable the node service' },
  { id: 'unit', title: 'Service unit' },
  { id: 'proxy-settings', title: 'Proxy settings' },
  { id: 'prepare', title: "The node's files, Runtime, network and store (as oac-node)" },
  { id: 'program', title: 'Node program, the command on PATH and the manual page' },
  { id: 'home', title: 'Home /var/lib/oac-node' },
  { id: 'group', title: 'Provider group' },
  { id: 'account', title: 'Service account oac-node, then the record' },
];

/** An uninstall (or `apply` of a saved uninstall plan) with its output. */
export async function runUninstallWith(
  request: Omit<UninstallRequest, 'signal'>,
  flags: { json: boolean; quiet?: boolean; planOut?: string },
): Promise<void> {
  const write = (text: string) => process.stdout.write(text);
  const dryRun = request.dryRun;
  // Issue #39: on a terminal the uninstall is drawn as the install is (listr2 rows, one per
  // group of steps); on a pipe, with --json, --quiet or a dry run, plain lines or events.
  const live = !flags.json && !dryRun && flags.quiet !== true && process.stdout.isTTY;
  // Issue #41: listr2 (and its string widths) loads only to draw on a terminal.
  const view = live
    ? (await import('../ui/listr-renderer.ts')).listrView(UNINSTALL_PHASES)
    : undefined;
  const render = flags.json
    ? jsonRenderer(write)
    : plainRenderer(write, dryRun, Date.now, flags.quiet === true);
  const shown: EngineEvent[] = [];
  const emit = (event: EngineEvent) => {
    if (flags.planOut !== undefined) shown.push(event);
    if (view === undefined) return render(event);
    // A step named as its group starts it under the uninstall's title, not the install's.
    const phase = UNINSTALL_PHASES.find((p) => event.type === 'step-start' && p.id === event.step);
    view.emit(phase === undefined ? event : ({ ...event, title: phase.title } as EngineEvent));
  };
  if (flags.json) jsonRenderer(write)(startEvent('uninstall', dryRun));
  const interruption = interruptOnSignals();
  const result = await uninstall({ ...request, signal: interruption.signal }, emit)
    .catch(async (error: unknown) => {
      await view?.finish(error);
      if (flags.json) jsonRenderer(write)(errorEvent(error));
      throw error;
    })
    .finally(interruption.release);
  await view?.finish();
  const { report, kept } = result;
  if (flags.planOut !== undefined) {
    if (result.plan === undefined) throw new Error('a dry run with --plan-out returns its plan');
    await writePlanFile(flags.planOut, {
      format: PLAN_FORMAT,
      command: 'uninstall',
      created_at: new Date().toISOString(),
      options: { installation_id: request.installationId, force: request.force },
      steps: result.plan.steps,
      changed: report.changed,
      fingerprint: result.plan.fingerprint,
      events: shownEvents(shown),
      kept,
    });
  }
  if (flags.json)
    jsonRenderer(write)({
      type: 'summary',
      changed: report.changed,
      kept,
      recorded: result.recorded,
    });
  else {
    // The other IDs come from the records' contents (root's files, but SEC-09 all the same).
    for (const line of outcomeLines(request.installationId, result, dryRun))
      write(`${printable(line)}\n`);
    // A kept line may name the node's image (its provider file is the node's to write: SEC-09).
    for (const line of kept) write(`${printable(`Kept: ${line}`)}\n`);
    if (flags.planOut !== undefined) write(planSavedLine(flags.planOut));
  }
  if (dryRun && report.changed) throw new ExitStatus(EXIT.changesPending);
}

/** What the run did, in words that do not claim more than it did: an ID this host records
 *  nothing of (mistyped, or uninstalled already) removed nothing, and says which IDs it does
 *  record (issue #25: it used to say the node was removed, and exit 0, while it kept running). */
export function outcomeLines(
  id: string,
  result: Pick<UninstallResult, 'recorded' | 'others' | 'report' | 'unaskedNode' | 'incomplete'>,
  dryRun: boolean,
): string[] {
  if (!result.recorded && !result.report.changed) {
    const records =
      result.others.length === 0
        ? 'This host records no installation of oac-node.'
        : `This host records installation ${result.others.join(', ')}: check the ID (sudo ls /etc/oac-node).`;
    const removed = dryRun ? 'nothing would be removed' : 'nothing was removed';
    const said = [`This host has no record of installation ${id}, and ${removed}.`, records];
    // A dry run still ends its plan with its usual line, which scripts look for.
    return dryRun ? ['Nothing would change.', ...said] : said;
  }
  const outcome = dryRun
    ? result.report.changed
      ? 'Changes would be made.'
      : 'Nothing would change.'
    : result.incomplete
      ? `The node of installation ${id} is not removed from this host completely: what is kept below stays, and a rerun of the uninstall finishes once it is gone.`
      : `The node of installation ${id} is removed from this host.`;
  // Issue #39: --force says what it did not do (Core was not asked), and what to do about it.
  const node = result.unaskedNode;
  if (node === undefined) return [outcome];
  const asked = dryRun ? 'Core would not be asked (--force)' : 'Core was not asked (--force)';
  return [
    outcome,
    `${asked}: if Web still lists node ${node}, remove it there (Nodes); this host can no longer connect as that node.`,
  ];
}
