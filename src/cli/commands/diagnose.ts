// `oac-node diagnose [--installation-id ID] [--out FILE] [--json]` (issue #40, docs/support.md):
// a support bundle that holds no secret (support/diagnose.ts), and what looks wrong, first
// problem first. --json prints the bundle's manifest.
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { COMMAND_SUMMARIES } from '../summaries.ts';
import { recordedIdOption, pathArg } from '../options.ts';
import { EXIT } from '../../errors.ts';
import { Host } from '../../host/host.ts';
import { layout, parseInstallationId } from '../../layout.ts';
import { oacError } from '../../messages.ts';
import { namedOrRecordedId } from '../recorded-installation.ts';
import { comment } from '../examples.ts';
import { documentLine, documentOption } from '../json-contract.ts';
import { printable } from '../../ui/printable.ts';
import { diagnose, type Diagnosis } from '../../../support/diagnose.ts';

interface DiagnoseArgs {
  'installation-id'?: string;
  out?: string;
  json: boolean;
  root?: string;
}

export const diagnoseCommand: CommandModule<object, DiagnoseArgs> = {
  command: 'diagnose',
  describe: COMMAND_SUMMARIES.diagnose,
  builder: (yargs: Argv) =>
    yargs
      .option('installation-id', recordedIdOption)
      .option('out', {
        type: 'string',
        describe: 'The bundle to write (0600; default oac-node-diagnose-<time>.tar.gz here)',
      })
      .option('json', documentOption)
      .example(comment('A bundle to attach to a ticket; look inside first: tar -tzvf FILE'), '')
      .example('sudo $0 diagnose', ''),
  handler: async (argv) => {
    const named = argv['installation-id'];
    if (named !== undefined) parseInstallationId(named);
    const out = resolve(pathArg('--out', argv.out) ?? defaultName());
    if (process.getuid?.() !== 0) throw oacError('diagnose_not_root');
    const host = new Host(argv.root ?? '/');
    const id = await namedOrRecordedId(named, host, EXIT.nothingInstalled);
    const done = await diagnose(host, layout(id), out);
    process.stdout.write(argv.json ? documentLine(done.manifest) : diagnosisText(out, done));
  },
};

function defaultName(): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `oac-node-diagnose-${stamp}.tar.gz`;
}

function diagnosisText(out: string, d: Diagnosis): string {
  const lines = [
    `Wrote ${out}: ${d.manifest.files.length + 1} files, ${d.bytes} bytes, SHA-256 ${d.sha256}`,
    `No secret of this host is in it (looked for: ${d.manifest.scanned_for.join(', ') || 'none held'}).`,
    `Look inside before sending it: tar -tzvf ${out}`,
    ...(d.summary.length === 0
      ? ['Nothing looks wrong.']
      : ['What looks wrong:', ...d.summary.map((s) => `  - ${s}`)]),
  ];
  return `${lines.map(printable).join('\n')}\n`;
}
