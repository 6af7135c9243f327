import type { Argv, CommandModule } from 'yargs';
import { notBuilt } from './not-built.ts';

export const runCommand: CommandModule = {
  command: 'run',
  describe: 'Run the node: connect to Core and report readiness (exit 78 = Core removed the node)',
  builder: (yargs: Argv) =>
    yargs
      .option('config', { type: 'string', describe: 'The provider file (JSON)' })
      .option('state-dir', { type: 'string', describe: "The node's state directory" }),
  handler: () => notBuilt('run', 3),
};
