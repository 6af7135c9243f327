// `oac-node status [--installation-id ID] [--json]`: the record against the host against Core
// (installer/status.ts). Exit 0 when everything matches and Core reports the node connected and
// ready; otherwise one line per problem and the status that says which kind (STATUS_EXIT: 2
// drift, 4 nothing recorded, 5 not checked, 6 not ready at Core). Root only: the record is
// root's (0600). What it prints for a person: src/cli/status-output.ts.
import { COMMAND_SUMMARIES } from '../summaries.ts';
import { recordedIdOption } from '../options.ts';
import type { Argv, CommandModule } from 'yargs';
import { STATUS_EXIT, nodeStatus, statusExit } from '../../../installer/status.ts';
import { EXIT, ExitStatus } from '../../errors.ts';
import { parseInstallationId } from '../../layout.ts';
import { Host } from '../../host/host.ts';
import { oacError } from '../../messages.ts';
import { namedOrRecordedId } from '../recorded-installation.ts';
import { comment } from '../examples.ts';
import { printableJson } from '../../ui/printable.ts';
import { forOperator } from '../../ui/operator-shell.ts';
import { renderStatus } from '../status-output.ts';

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
      .option('installation-id', recordedIdOption)
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
    if (process.getuid?.() !== 0) throw oacError('status_not_root');
    const host = new Host(argv.root ?? '/');
    const id = await namedOrRecordedId(named, host, STATUS_EXIT.notInstalled);
    const status = await nodeStatus(host, id);
    if (status === undefined)
      throw oacError('not_installed', { id }, { exitCode: STATUS_EXIT.notInstalled });
    // A format, as every document of the contract has (docs/automation.md): 1 until a field is
    // renamed, removed or given another meaning.
    const json = () => `${forOperator(printableJson({ format: STATUS_FORMAT, ...status }))}\n`;
    process.stdout.write(argv.json ? json() : renderStatus(status));
    const exit = statusExit(status);
    if (exit !== EXIT.ok) throw new ExitStatus(exit);
  },
};
