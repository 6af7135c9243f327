// `oac-node version [--json]` (and `--version --json`): what this program is, for a ticket or a
// fleet's inventory (issue #39 item 6): its version, the build (release or test, and the commit
// it was built from), the Node.js inside it, and the formats it reads and writes: the record
// under /etc/oac-node, the --json events, the saved plans. `--version` alone stays the bare
// version on one line, as scripts read it.
import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Argv, CommandModule } from 'yargs';
import { PROGRAM, VERSION, buildOf } from '../../version.ts';
import { JOURNAL_FORMAT } from '../../../records/journal.ts';
import { PLAN_FORMAT } from '../../installation/saved-plan.ts';
import { JSON_FORMAT } from '../json-contract.ts';
import { printableJson } from '../../ui/printable.ts';
import { comment } from '../examples.ts';

const VERSION_FORMAT = 1;

export function versionDocument() {
  return {
    format: VERSION_FORMAT,
    program: PROGRAM,
    version: VERSION,
    build: buildOf(),
    node: process.versions.node,
    formats: { record: JOURNAL_FORMAT, json: JSON_FORMAT, plan: PLAN_FORMAT },
  };
}

export function versionText(d = versionDocument()): string {
  const commit = d.build.commit === null ? '' : `, commit ${d.build.commit}`;
  return [
    `${d.program} ${d.version}`,
    `  build    ${d.build.kind}${commit}`,
    `  Node.js  ${d.node}`,
    `  formats  record ${d.formats.record}, --json ${d.formats.json}, saved plan ${d.formats.plan}`,
    '',
  ].join('\n');
}

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
