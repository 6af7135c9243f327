import type { Argv, CommandModule } from 'yargs';
import { notBuilt } from './not-built.ts';

export const uninstallCommand: CommandModule = {
  command: 'uninstall',
  describe: 'Remove the node from this host, after Core confirms it was removed',
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
      .option('json', { type: 'boolean', default: false, describe: 'Print NDJSON events' }),
  handler: () => notBuilt('uninstall', 5),
};
