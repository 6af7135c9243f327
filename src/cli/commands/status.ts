// `oac-node status [--installation-id ID] [--json]`: the record against the host against Core
// (installer/status.ts). Exit 0 when everything matches and Core reports the node connected and
// ready; otherwise one line per problem and the status that says which kind (STATUS_EXIT: 2
// drift, 4 nothing recorded, 5 not checked, 6 not ready at Core). Root only: the record is
// root's (0600).
import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Argv, CommandModule } from 'yargs';
import { STATUS_EXIT, nodeStatus, statusExit, type NodeStatus } from '../../../installer/status.ts';
import { EXIT, ExitStatus } from '../../errors.ts';
import { parseInstallationId } from '../../layout.ts';
import { Host } from '../../host/host.ts';
import { oacError } from '../../messages.ts';
import { namedOrRecordedId } from '../recorded-installation.ts';
import { comment } from '../examples.ts';
import { printable, printableJson } from '../../ui/printable.ts';

const STATUS_FORMAT = 1;

interface StatusArgs {
  'installation-id'?: string;
  json: boolean;
  root?: string;
}

export const statusCommand: CommandModule<object, StatusArgs> = {
  command: 'status',
  describe: COMMAND_SUMMARIES.status,
  builder: (yargs: Argv) =>
    yargs
      .option('installation-id', {
        type: 'string',
        describe: "The Core installation's ID (default: the one this host records)",
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print JSON',
      })
      .example(comment('The installation this host records: drift, the service, Core'), '')
      .example('sudo $0 status', '')
      .example(comment('For a script: one JSON document; the exit status says which problem'), '')
      .example('sudo $0 status --json', ''),
  handler: async (argv) => {
    const named = argv['installation-id'];
    if (named !== undefined) parseInstallationId(named); // a usage error first, as root or not
    if (process.getuid?.() !== 0) throw oacError('not_root');
    const host = new Host(argv.root ?? '/');
    const id = await namedOrRecordedId(named, host, STATUS_EXIT.notInstalled);
    const status = await nodeStatus(host, id);
    if (status === undefined)
      throw oacError('not_installed', { id }, { exitCode: STATUS_EXIT.notInstalled });
    // A format, as every document of the contract has (docs/automation.md): 1 until a field is
    // renamed, removed or given another meaning.
    const json = () => `${printableJson({ format: STATUS_FORMAT, ...status })}\n`;
    process.stdout.write(argv.json ? json() : renderStatus(status));
    const exit = statusExit(status);
    if (exit !== EXIT.ok) throw new ExitStatus(exit);
  },
};

function renderStatus(s: NodeStatus): string {
  const pinned = s.core_pin === null ? '' : `, its key pinned to ${s.core_pin}`;
  const lines = [`Node of installation ${s.installation_id} (Core ${s.core_url}${pinned})`];
  const width = Math.max(...s.resources.map((r) => r.name.length), 4);
  for (const r of s.resources) {
    const state = r.state === 'present' ? 'present' : `${r.state}: ${r.detail ?? ''}`;
    lines.push(`  ${r.ownership.padEnd(8)} ${r.kind.padEnd(16)} ${r.name.padEnd(width)} ${state}`);
  }
  if (s.node_half.state === 'unknown')
    lines.push(`Node half: not checked (${s.node_half.detail ?? 'no reason given'})`);
  const service = `${s.service.enabled ? 'enabled' : 'not enabled'}, ${s.service.active ? 'active' : 'not running'}`;
  lines.push(`Service: ${s.service.unit} ${service}`);
  const node = s.core.node_id === undefined ? '' : ` node ${s.core.node_id}`;
  const core =
    s.core.state === 'ready'
      ? 'connected and ready'
      : `${s.core.state}${s.core.detail ? ` (${s.core.detail})` : ''}`;
  lines.push(`Core:${node} ${core}`);
  if (s.problems.length === 0)
    lines.push('No drift: the host matches the record, and Core has the node ready.');
  else
    lines.push(
      `${s.problems.length === 1 ? '1 problem' : `${s.problems.length} problems`}:`,
      ...s.problems.map((p) => `  - ${p}`),
    );
  // Names and details come from the record, the node's files and Core (SEC-03, SEC-09).
  return `${lines.map(printable).join('\n')}\n`;
}
