// An install's run and what it shows (the install command and `apply`): listr2 phases on a
// terminal, plain lines on a pipe, NDJSON with --json; the summary; the saved plan.
import {
  INSTALL_PHASES,
  install,
  type InstallRequest,
  type InstallResult,
} from '../../installer/install.ts';
import { PLAN_FORMAT, shownEvents } from '../installation/saved-plan.ts';
import { writePlanFile } from '../installation/plan-file.ts';
import type { EngineEvent } from '../core/events.ts';
import { EXIT, ExitStatus } from '../errors.ts';
import { hint, message } from '../messages.ts';
import { printable } from '../ui/printable.ts';
import { planSavedLine } from '../ui/plan-saved.ts';
import { jsonRenderer, plainRenderer } from '../ui/render-events.ts';
import { errorEvent } from './error-event.ts';
import { startEvent } from './json-contract.ts';
import { interruptOnSignals } from './interrupt.ts';
import { layout, type InstallationId } from '../layout.ts';
import { Host } from '../host/host.ts';
import { VERSION } from '../version.ts';
import { keepRunLog as keepLastRunLog } from '../../installer/last-run.ts';

/** An install (or `apply` of a saved plan) with its output: listr2 phases on a terminal, plain
 *  lines on a pipe, NDJSON with --json; a dry run ends with exit 2 when something would
 *  change; --plan-out writes the plan it showed. */
export async function runInstall(
  request: Omit<InstallRequest, 'signal'>,
  flags: { json: boolean; quiet?: boolean; planOut?: string },
): Promise<void> {
  const write = (text: string) => process.stdout.write(text);
  const dryRun = request.dryRun;
  const quiet = flags.quiet === true;
  const live = !flags.json && !dryRun && !quiet && process.stdout.isTTY;
  // Issue #41: listr2 (and its string widths) loads only to draw on a terminal.
  const view = live
    ? (await import('../ui/listr-renderer.ts')).listrView(INSTALL_PHASES)
    : undefined;
  const plain = flags.json ? jsonRenderer(write) : plainRenderer(write, dryRun, Date.now, quiet);
  if (flags.json) jsonRenderer(write)(startEvent('install', dryRun));
  const shown: EngineEvent[] = [];
  // Issue #39: the run's events as --json prints them, kept root-only when the run changed the
  // host (installer/last-run.ts), whatever this terminal shows.
  const logged: string[] = [];
  const log = jsonRenderer((line) => logged.push(line));
  log(startEvent('install', dryRun));
  const lastRun = { noted: false };
  const emit = (event: EngineEvent) => {
    log(event);
    if (flags.planOut !== undefined) shown.push(event);
    if (view === undefined) return plain(event);
    if (event.type === 'step-start')
      view.complete('preflight', 'Checked the host, Core and the release');
    view.emit(event);
  };
  // OPS-03: the first Ctrl-C, SIGTERM or SIGHUP stops the run at a step boundary.
  const interruption = interruptOnSignals();
  const keep = (failed: boolean) =>
    lastRun.noted ? keepRunLog(request, logged, failed) : undefined;
  const result = await install({ ...request, signal: interruption.signal, lastRun }, emit)
    .catch(async (error: unknown) => {
      await view?.finish(error);
      // OPS-02: --json ends with the failure's code and hint as an event of its own.
      if (flags.json) jsonRenderer(write)(errorEvent(error));
      log(errorEvent(error));
      await keep(true);
      throw error;
    })
    .finally(() => interruption.release());
  await view?.finish();
  if (flags.planOut !== undefined) await savePlan(flags.planOut, result, shown);
  const summary = summaryOf(request.installationId, result);
  log(summary);
  await keep(false);
  if (flags.json) jsonRenderer(write)(summary);
  else if (dryRun) {
    write(result.report.changed ? 'Changes would be made.\n' : 'Nothing would change.\n');
    if (flags.planOut !== undefined) write(planSavedLine(flags.planOut));
  } else {
    const ready = `Node ${result.nodeId ?? ''} is connected and ready.`;
    const more = [`Status: ${summary.status}`, `Logs: ${summary.logs}`];
    // The node ID is Core's word (SEC-09: escaped like every line from outside).
    for (const line of quiet
      ? [ready]
      : [ready, ...more, ...summary.notes.map((n) => `Note: ${n}`)])
      write(`${printable(line)}\n`);
  }
  if (dryRun && result.report.changed) throw new ExitStatus(EXIT.changesPending);
}

/** The run's events, root's alone in /var/log/oac-node (a failure to keep them is said, and
 *  never fails the run it describes). */
async function keepRunLog(
  request: { root: string; installationId: InstallationId },
  lines: string[],
  failed: boolean,
) {
  const host = new Host(request.root);
  await keepLastRunLog(host, layout(request.installationId), lines).catch((error: unknown) =>
    // A failed run's own line is the one to read (the disk that failed it may be this one).
    failed
      ? undefined
      : process.stderr.write(
          `${printable(`oac-node: the run's events could not be kept in ${layout(request.installationId).lastRunLog}: ${error instanceof Error ? error.message : String(error)}`)}\n`,
        ),
  );
}

/** The last --json event of a finished install, dry run or apply. */
export function summaryOf(
  installationId: InstallationId,
  result: { report: { changed: boolean }; nodeId?: string; provider?: 'docker' | 'microsandbox' },
) {
  const unit = layout(installationId).unitName;
  // SEC-08: a Docker node's account can do as root does through the docker group.
  const notes =
    result.provider === 'docker'
      ? [`${message('docker_group_root')}: ${hint('docker_group_root') ?? ''}`]
      : [];
  return {
    type: 'summary',
    changed: result.report.changed,
    node_id: result.nodeId ?? null,
    unit,
    status: `sudo systemctl status ${unit}`,
    logs: `sudo journalctl -u ${unit}`,
    notes,
    version: VERSION,
  };
}

/** DECL-05: the plan this dry run showed, with what it was made from, as a root-only file. */
async function savePlan(path: string, result: InstallResult, shown: EngineEvent[]): Promise<void> {
  if (result.plan === undefined) throw new Error('a dry run with --plan-out returns its plan');
  await writePlanFile(path, {
    format: PLAN_FORMAT,
    command: 'install',
    created_at: new Date().toISOString(),
    options: result.plan.options,
    ...(result.provider === undefined ? {} : { provider: result.provider }),
    steps: result.plan.steps,
    changed: result.report.changed,
    fingerprint: result.plan.fingerprint,
    events: shownEvents(shown),
  });
}
