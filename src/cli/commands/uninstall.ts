import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Argv, CommandModule } from 'yargs';
import { uninstall } from '../../../uninstaller/uninstall.ts';
import { ExitStatus, OacError, EXIT } from '../../errors.ts';
import { parseInstallationId } from '../../layout.ts';
import { hint, message } from '../../messages.ts';
import { printable } from '../../ui/printable.ts';
import { jsonRenderer, plainRenderer } from '../../ui/render-events.ts';
import { startEvent } from '../json-contract.ts';
import { errorEvent } from '../error-event.ts';
import { interruptOnSignals } from '../interrupt.ts';

interface UninstallArgs {
  'installation-id'?: string;
  force: boolean;
  'dry-run': boolean;
  json: boolean;
  root?: string;
}

export async function runUninstall(argv: UninstallArgs): Promise<void> {
  const installationId = parseInstallationId(argv['installation-id']);
  if (process.getuid?.() !== 0)
    throw new OacError('not_root', message('not_root'), { hint: hint('not_root') });
  const write = (text: string) => process.stdout.write(text);
  const emit = argv.json ? jsonRenderer(write) : plainRenderer(write, argv['dry-run']);
  if (argv.json) jsonRenderer(write)(startEvent('uninstall', argv['dry-run']));
  const interruption = interruptOnSignals();
  const { report, kept } = await uninstall(
    {
      root: argv.root ?? '/',
      installationId,
      force: argv.force,
      dryRun: argv['dry-run'],
      signal: interruption.signal,
    },
    emit,
  )
    .catch((error: unknown) => {
      if (argv.json) jsonRenderer(write)(errorEvent(error));
      throw error;
    })
    .finally(interruption.release);
  if (argv.json) jsonRenderer(write)({ type: 'summary', changed: report.changed, kept });
  else {
    if (argv['dry-run'])
      write(report.changed ? 'Changes would be made.\n' : 'Nothing would change.\n');
    else write(`The node of installation ${installationId} is removed from this host.\n`);
    // A kept line may name the node's image (its provider file is the node's to write: SEC-09).
    for (const line of kept) write(`${printable(`Kept: ${line}`)}\n`);
  }
  if (argv['dry-run'] && report.changed) throw new ExitStatus(EXIT.changesPending);
}

export const uninstallCommand: CommandModule<object, UninstallArgs> = {
  command: 'uninstall',
  describe: COMMAND_SUMMARIES.uninstall,
  builder: (yargs: Argv) =>
    yargs
      .option('installation-id', { type: 'string', describe: "The Core installation's ID" })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Do not ask Core first (Core is gone)',
      })
      .option('dry-run', {
        type: 'boolean',
        default: false,
        describe: 'Print the plan and change nothing',
      })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print NDJSON events',
      })
      .example(
        'sudo $0 uninstall --installation-id ID',
        'After Remove node in Web: Core confirms the node is gone, then the host is cleaned',
      )
      .example(
        'sudo $0 uninstall --installation-id ID --force',
        'Core is gone for good: remove the node without asking it',
      ) as unknown as Argv<UninstallArgs>,
  handler: runUninstall,
};
