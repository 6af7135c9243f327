// plan.json (issue #40, docs/support.md): the plan a rerun of this installation would make, as
// `oac-node install … --dry-run --json` prints it. The rerun is the one status names as the
// repair (installer/status-next.ts repairLines): the recorded Core, ID and checkpoint store, the
// saved proxy variables in its environment, stdin closed (a registered node needs no token; the
// pin is the node's recorded one). It is this program run again (src/host/self.ts), not called
// in-process: the document's first and last events are the CLI's own (src/cli/install-output.ts),
// which support/ may not import (eslint.config.js LAYERS), and a child can be stopped whole when
// it takes too long. A dry run changes nothing (DECL-03); it takes the installer's lock, as
// every run does, and so waits for a run under way (records/installer-lock.ts).
import type { Host } from '../src/host/host.ts';
import { selfCommand } from '../src/host/self.ts';
import type { Layout } from '../src/layout.ts';
import { readJournal, type JournalData } from '../records/journal.ts';
import { savedProxyEnv } from '../records/proxy-settings.ts';
import { word } from '../installer/status-next.ts';
import { reasonOf } from './facts.ts';

/** Core's retries and Docker's answers take seconds; a dry run still going after this is stopped
 *  (its process group: src/host/child-lines.ts), and the bundle is written without its plan. */
export const PLAN_LIMIT_MS = 60_000;
const GRACE_MS = 5_000;
/** A plan is tens of events; more are not kept (the rest of the bundle matters as much). */
const MAX_EVENTS = 2_000;

export interface RerunPlan {
  /** The command run, as an operator would type it (proxy variables named, never shown). */
  command: string;
  proxy_variables: string[];
  /** 0: nothing would change; 2: changes would be made; else it failed (its error event). */
  exit_status: number;
  /** The --json events, in order, as printed (a line that is no JSON: as it came). */
  events: unknown[];
  truncated?: true;
}

export async function rerunPlan(host: Host, names: Layout): Promise<RerunPlan> {
  const recorded = await readJournal(host, names.id);
  if (recorded === undefined) throw new Error('no record of this installation: nothing to rerun');
  // Without them the rerun would plan to remove the node's proxy file (status-next.ts).
  const proxyEnv = await savedProxyEnv(host, names);
  const args = rerunArgs(host, recorded);
  const self = selfCommand(args);
  const events: unknown[] = [];
  let truncated = false;
  const signal = AbortSignal.timeout(PLAN_LIMIT_MS);
  const done = await host.runStreaming(self.command, self.args, {
    input: '',
    env: proxyEnv,
    signal,
    graceMs: GRACE_MS,
    onLine: (line) => {
      if (events.length < MAX_EVENTS) events.push(parsed(line));
      else truncated = true;
    },
  });
  if (signal.aborted)
    throw new Error(`the dry run did not finish within ${PLAN_LIMIT_MS / 1000} s and was stopped`);
  if (events.length === 0)
    throw new Error(
      `the dry run printed nothing (exit ${done.exitCode}): ${reasonOf(done.stderr)}`,
    );
  return {
    command: `oac-node ${args.map(word).join(' ')} < /dev/null`,
    proxy_variables: Object.keys(proxyEnv),
    exit_status: done.exitCode,
    events,
    ...(truncated ? { truncated: true as const } : {}),
  };
}

/** The rerun's arguments, as the record has them (installer/status-next.ts repairLines). */
export function rerunArgs(host: Host, recorded: JournalData): string[] {
  const checkpoints = recorded.inputs.checkpoint_root;
  return [
    'install',
    '--core-url',
    recorded.core_url,
    '--installation-id',
    recorded.installation_id,
    ...(checkpoints === null ? [] : ['--checkpoint-root', checkpoints]),
    ...(host.prefixed ? ['--root', host.root] : []),
    '--dry-run',
    '--json',
  ];
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return line;
  }
}
