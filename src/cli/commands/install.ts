import type { Argv, CommandModule } from 'yargs';
import { notBuilt } from './not-built.ts';

// The guide's commands pass `--uninstall` to the installer (BOOT-07): accepted as an alias of
// the uninstall command, so those lines keep working.
export const installCommand: CommandModule = {
  command: 'install',
  describe: 'Turn this host into a node of a Core (the enrollment token is read from stdin)',
  builder: (yargs: Argv) =>
    yargs
      .option('core-url', { type: 'string', describe: "Core's public URL" })
      .option('installation-id', { type: 'string', describe: "The Core installation's ID" })
      .option('checkpoint-root', {
        type: 'string',
        describe: 'microsandbox: shared checkpoint store (absolute path)',
      })
      .option('name', {
        type: 'string',
        describe: "The node's display name (default: the host name)",
      })
      .option('dry-run', {
        type: 'boolean',
        default: false,
        describe: 'Print the plan and change nothing',
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print NDJSON events' })
      .option('timeout', {
        type: 'number',
        describe: 'Seconds to wait for the node to become ready',
      })
      .option('uninstall', {
        type: 'boolean',
        default: false,
        describe: 'Same as the uninstall command',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'With --uninstall: do not ask Core first',
      })
      .example(
        'curl … | sh',
        'Run the one-line command that Web prints instead of calling this directly',
      ),
  handler: (argv) =>
    notBuilt(argv.uninstall === true ? 'uninstall' : 'install', argv.uninstall === true ? 5 : 4),
};
