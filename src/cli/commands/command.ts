import type { Argv, CommandModule } from 'yargs';
import { notBuilt } from './not-built.ts';

export const commandCommand: CommandModule = {
  command: 'command',
  describe: 'Print the one-line install (or uninstall) command for this Core',
  builder: (yargs: Argv) =>
    yargs
      .option('core-url', { type: 'string', describe: "Core's public URL" })
      .option('installation-id', { type: 'string', describe: "The Core installation's ID" })
      .option('uninstall', {
        type: 'boolean',
        default: false,
        describe: 'Print the uninstall command',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'With --uninstall: skip asking Core',
      }),
  handler: () => notBuilt('command', 4),
};
