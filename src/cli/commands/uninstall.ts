// `oac-node uninstall`: parses, calls the uninstall, renders (src/cli/uninstall-output.ts).
import type { Argv, CommandModule } from 'yargs';
import { COMMAND_SUMMARIES } from '../summaries.ts';
import { runUninstallWith } from '../uninstall-output.ts';
import { EXIT } from '../../errors.ts';
import { jsonOption, pathArg, planOutOption, quietOption, recordedIdOption } from '../options.ts';
import { parseInstallationId } from '../../layout.ts';
import { oacError } from '../../messages.ts';
import { Host } from '../../host/host.ts';
import { namedOrRecordedId } from '../recorded-installation.ts';
import { comment } from '../examples.ts';

interface UninstallArgs {
  'installation-id'?: string;
  force: boolean;
  'dry-run': boolean;
  'plan-out'?: string;
  json: boolean;
  quiet: boolean;
  root?: string;
}

export async function runUninstall(argv: UninstallArgs): Promise<void> {
  const named = argv['installation-id'];
  if (named !== undefined) parseInstallationId(named); // a usage error first, as root or not
  const planOut = pathArg('--plan-out', argv['plan-out']);
  if (process.getuid?.() !== 0) throw oacError('not_root');
  const root = argv.root ?? '/';
  const installationId = await namedOrRecordedId(named, new Host(root), EXIT.nothingInstalled);
  const request = {
    root,
    installationId,
    force: argv.force,
    // DECL-05: a saved plan is a dry run's plan, written to a file.
    dryRun: argv['dry-run'] || planOut !== undefined,
    ...(planOut === undefined ? {} : { planOut: true }),
  };
  await runUninstallWith(request, { json: argv.json, quiet: argv.quiet, planOut });
}

export const uninstallCommand: CommandModule<object, UninstallArgs> = {
  command: 'uninstall',
  describe: COMMAND_SUMMARIES.uninstall,
  builder: (yargs: Argv) =>
    yargs
      .option('installation-id', recordedIdOption)
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
      .option('plan-out', planOutOption)
      .option('json', jsonOption)
      .option('quiet', quietOption)
      .example(
        comment(
          'After Remove node in Web: Core confirms the node is gone, then the host is cleaned',
        ),
        '',
      )
      .example('sudo $0 uninstall --installation-id ID', '')
      .example(comment('Core is gone for good: remove the node without asking it'), '')
      .example('sudo $0 uninstall --installation-id ID --force', ''),
  handler: runUninstall,
};
