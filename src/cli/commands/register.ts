import type { Argv, CommandModule } from 'yargs';
import { notBuilt } from './not-built.ts';

export const registerCommand: CommandModule = {
  command: 'register',
  describe: 'Register this host manually with an enrollment token file (NODE-01)',
  builder: (yargs: Argv) =>
    yargs
      .option('config', { type: 'string', describe: 'The provider file (JSON)' })
      .option('state-dir', { type: 'string', describe: "The node's state directory" })
      .option('core-url', { type: 'string', describe: "Core's public URL" })
      .option('name', { type: 'string', describe: "The node's display name" })
      .option('enrollment-token-file', {
        type: 'string',
        describe: 'File holding the token (mode 0600)',
      }),
  handler: () => notBuilt('register', 3),
};
