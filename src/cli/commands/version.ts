// `oac-node version [--json]` (and `--version --json`): what this program is, for a ticket or a
// fleet's inventory (issue #39 item 6): its version, the build (release or test, and the commit
// it was built from), the Node.js inside it, and the formats it reads and writes: the record
// under /etc/oac-node, the --json events, the saved plans. `--version` alone stays the bare
// version on one line, as scripts read it.
import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Argv, CommandModule } from 'yargs';
import { versionDocument, versionText } from '../../../support/version-document.ts';
import { printableJson } from '../../ui/printable.ts';
import { comment } from '../examples.ts';

export const versionCommand: CommandModule<object, { json: boolean }> = {
  command: 'version',
  describe: COMMAND_SUMMARIES.version,
  builder: (yargs: Argv) =>
    yargs
      .option('json', { type: 'boolean', default: false, describe: 'Print JSON' })
      .example(comment('This program: version, build, Node.js, the formats it reads'), '')
      .example('$0 version', '')
      .example('$0 version --json', ''),
  handler: (argv) => {
    process.stdout.write(argv.json ? `${printableJson(versionDocument())}\n` : versionText());
  },
};
