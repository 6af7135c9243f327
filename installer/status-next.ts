// What `status` tells the operator to do next (issue #39 item 7): the exact command, built from
// what the host records, not "rerun the install command". A registered node's rerun needs no
// token (its credential is on the host), so the repair is a command to copy: the recorded Core,
// ID, pin and checkpoint store, with stdin closed. Proxy settings are named, never printed: their
// values may hold a password (SEC-03), and a rerun without them removes the saved proxy file.
import type { JournalData } from '../records/journal.ts';
import type { NodeStatus } from './status.ts';
import { shQuote } from './one-liner.ts';
import { KEYS } from '../src/installation/desired.ts';

export interface NextInputs {
  recorded: Pick<JournalData, 'installation_id' | 'core_url' | 'inputs' | 'registered_node'>;
  /** The names of the proxy variables the installation saved for its service. */
  proxyNames: readonly string[];
}

type Judged = Pick<NodeStatus, 'resources' | 'core' | 'service' | 'node_half' | 'other_host'>;

/** The line from Web again: for a node that never registered (a rerun needs a token), and for a
 *  program or command on PATH that is not the installed one (the repair must not run it). */
const FRESH_LINE = 'copy the line from Web (Nodes → Add node) and paste it here again';
const PROGRAM_KEYS: ReadonlySet<string> = new Set([KEYS.program, KEYS.pathCommand]);

/** One line per thing to do, most useful first; empty when all is well. */
export function nextSteps(s: Judged, o: NextInputs): string[] {
  const unit = s.service.unit;
  const logs = `sudo journalctl -u ${unit} -n 50`;
  if (s.other_host) return copiedHostSteps(o);
  if (s.core.state === 'removed')
    return [`Core removed this node: remove it from the host with sudo oac-node uninstall`];
  const registered = s.core.state !== 'not registered' && o.recorded.registered_node !== null;
  const drifted = s.resources.filter((r) => r.state !== 'present');
  const steps: string[] = [];
  if (!registered) steps.push(`The node is not registered: ${FRESH_LINE}`);
  else if (drifted.some((r) => PROGRAM_KEYS.has(r.key)))
    steps.push(`The program here is not the installed one: to repair the host, ${FRESH_LINE}`);
  else if (drifted.length > 0) steps.push(...repairLines(o));
  if (s.core.state === 'disconnected' || s.core.state === 'not ready')
    steps.push(
      s.service.active
        ? `The service runs but Core does not have the node ready; its log says why: ${logs}`
        : `The service is not running: start it with sudo systemctl start ${unit}, then read ${logs}`,
    );
  if (s.core.state === 'unreachable' || s.core.state === 'unknown')
    steps.push(
      `Core could not be asked: check that this host reaches ${o.recorded.core_url}${proxies(o)}; the service's log: ${logs}`,
    );
  // The node half's own reason is in the problems; what to look at, where it is the provider.
  const askedCore = registered && s.core.state !== 'unreachable' && s.core.state !== 'unknown';
  if (s.node_half.state === 'unknown' && askedCore)
    steps.push(
      o.recorded.inputs.provider === 'microsandbox'
        ? 'The node half was not checked: see that /dev/kvm is there (ls -l /dev/kvm)'
        : 'The node half was not checked: see that Docker answers (sudo docker info)',
    );
  // What status cannot name (Core's answer unusable, the node half not planned for a reason of
  // its own): a support bundle for the ticket (issue #40, docs/support.md).
  if (s.core.state === 'unknown' || (s.node_half.state === 'unknown' && askedCore))
    steps.push(
      'If the cause is not clear: sudo oac-node diagnose writes a support bundle for a ticket',
    );
  return steps;
}

/** A copy of the node's host (issue #40): made a node of its own, or, when it is the same host
 *  and its machine ID was changed on purpose, confirmed by a rerun with --same-host. */
function copiedHostSteps(o: NextInputs): string[] {
  const id = word(o.recorded.installation_id);
  return [
    `To make this host a node of its own (the original host keeps the node): sudo oac-node uninstall --installation-id ${id} --force, then ${FRESH_LINE}`,
    ...repairLines(o, {
      lead: 'Only if this is the same host and its machine ID was changed on purpose, confirm it',
      extra: ['--same-host'],
    }),
  ];
}

/** The install command a rerun of this registered node takes, as the record has it. With saved
 *  proxy settings it runs in a root shell with them exported: sudo would drop them (env_reset),
 *  and a rerun without them removes the node's proxy file. Their values are never printed. */
export function repairLines(
  o: NextInputs,
  { lead = 'Repair the host', extra = [] }: { lead?: string; extra?: string[] } = {},
): string[] {
  const r = o.recorded;
  const words = [
    'oac-node install',
    `--core-url ${word(r.core_url)}`,
    `--installation-id ${word(r.installation_id)}`,
    ...(r.inputs.checkpoint_root === null
      ? []
      : [`--checkpoint-root ${word(r.inputs.checkpoint_root)}`]),
    ...extra,
  ];
  // A registered node needs no token: stdin closed, so nothing waits for one.
  const command = `${words.join(' ')} < /dev/null`;
  if (o.proxyNames.length === 0) return [`${lead} with: sudo ${command}`];
  return [
    `${lead} in a root shell (sudo -i), with ${o.proxyNames.join(', ')} exported as at install:`,
    `  ${command}`,
  ];
}

function proxies(o: NextInputs): string {
  return o.proxyNames.length === 0 ? '' : ` (through the saved ${o.proxyNames.join(', ')})`;
}

/** A value as one shell word: bare when it is plain (a URL, an ID), quoted otherwise. */
export function word(value: string): string {
  return /^[A-Za-z0-9._:/@%+=,-]+$/.test(value) ? value : shQuote(value);
}
