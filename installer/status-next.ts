// What `status` tells the operator to do next (issue #39 item 7): the exact command, built from
// what the host records, not "rerun the install command". A registered node's rerun needs no
// token (its credential is on the host), so the repair is a command to copy: the recorded Core,
// ID, pin and checkpoint store, with stdin closed. Proxy settings are named, never printed: their
// values may hold a password (SEC-03), and a rerun without them removes the saved proxy file.
import type { JournalData } from '../records/journal.ts';
import type { NodeStatus } from './status.ts';
import { shQuote } from './one-liner.ts';

export interface NextInputs {
  recorded: Pick<JournalData, 'installation_id' | 'core_url' | 'inputs' | 'registered_node'>;
  /** The names of the proxy variables the installation saved for its service. */
  proxyNames: readonly string[];
}

type Judged = Pick<NodeStatus, 'resources' | 'core' | 'service' | 'node_half'>;

/** One line per thing to do, most useful first; empty when all is well. */
export function nextSteps(s: Judged, o: NextInputs): string[] {
  const unit = s.service.unit;
  const logs = `sudo journalctl -u ${unit} -n 50`;
  const steps: string[] = [];
  if (s.core.state === 'removed')
    return [`Core removed this node: remove it from the host with sudo oac-node uninstall`];
  if (s.resources.some((r) => r.state !== 'present')) steps.push(repairLine(o));
  if (s.core.state === 'not registered')
    steps.push(
      'The node is not registered: copy a fresh line from Web (Nodes → Add node) and paste it here',
    );
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
  if (s.node_half.state === 'unknown')
    steps.push('The node half was not checked: see that Docker answers (sudo docker info)');
  return steps;
}

/** The install command a rerun of this node takes, as the record has it. */
export function repairLine(o: NextInputs): string {
  const r = o.recorded;
  const words = [
    'sudo oac-node install',
    `--core-url ${word(r.core_url)}`,
    `--installation-id ${word(r.installation_id)}`,
    ...(r.inputs.checkpoint_root === null
      ? []
      : [`--checkpoint-root ${word(r.inputs.checkpoint_root)}`]),
  ];
  // A registered node needs no token; one that never registered needs Web's fresh line.
  const command = `${words.join(' ')} < /dev/null`;
  const proxy =
    o.proxyNames.length === 0
      ? ''
      : ` (export ${o.proxyNames.join(', ')} first, as at install: the rerun saves the proxy settings it is given)`;
  return `Repair the host with: ${command}${proxy}`;
}

function proxies(o: NextInputs): string {
  return o.proxyNames.length === 0 ? '' : ` (through the saved ${o.proxyNames.join(', ')})`;
}

/** A value as one shell word: bare when it is plain (a URL, an ID), quoted otherwise. */
function word(value: string): string {
  return /^[A-Za-z0-9._:/@%+=,-]+$/.test(value) ? value : shQuote(value);
}
