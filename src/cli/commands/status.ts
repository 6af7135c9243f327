import type { Argv, CommandModule } from 'yargs';
import { notBuilt } from './not-built.ts';

export const statusCommand: CommandModule = {
  command: 'status',
  describe: "Compare this node's records with the host and with Core",
  builder: (yargs: Argv) =>
    yargs
      .option('installation-id', { type: 'string', describe: "The Core installation's ID" })
      .option('json', { type: 'boolean', default: false, describe: 'Print JSON' }),
  handler: () => notBuilt('status', 5),
};
