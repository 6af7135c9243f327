import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Argv, CommandModule } from 'yargs';
import { resolve } from 'node:path';
import { EXIT, UsageError } from '../../errors.ts';
import { pathArg } from '../options.ts';
import { parseCorePin, pinOrigin } from '../../net/core-pin.ts';
import { releaseIdSchema } from '../../net/release-manifest.ts';
import { parseServiceUrl } from '../../net/url-policy.ts';
import { makeBundleShown, madeOutput } from '../bundle-output.ts';
import { documentOption } from '../json-contract.ts';
import { comment } from '../examples.ts';

// `oac-node bundle` (OFFLINE-01, docs/offline.md): one file with a release's installer, manifest
// and node files, for hosts that reach Core but not the console's (--json: docs/schema/).

interface BundleArgs {
  'console-url': string;
  release: string;
  out: string;
  provider?: 'docker' | 'microsandbox';
  'core-pin'?: string;
  json: boolean;
}

export const bundleCommand: CommandModule<object, BundleArgs> = {
  command: 'bundle',
  describe: COMMAND_SUMMARIES.bundle,
  builder: (yargs: Argv) =>
    yargs
      .option('console-url', {
        type: 'string',
        demandOption: true,
        describe: 'Where the console serves /node-files/ (usually the Core URL)',
      })
      .option('release', {
        type: 'string',
        demandOption: true,
        describe: "The release, as Core's configuration names it (Web, Settings)",
      })
      .option('out', { type: 'string', demandOption: true, describe: 'The bundle file to write' })
      .option('provider', {
        choices: ['docker', 'microsandbox'] as const,
        describe: "Only what this provider's nodes take (default: every file)",
      })
      .option('core-pin', {
        type: 'string',
        describe: "sha256:<hex> of Core's CA public key, for a console under a private CA",
      })
      .option('json', documentOption)
      .example(
        comment('Then copy the file to the host and run the line oac-node command --bundle prints'),
        '',
      )
      .example(
        [
          '$0 bundle --console-url https://core.example --release 0.1.0-3f1c2a9b7e40 \\',
          '    --out oac-node-0.1.0.bundle',
        ].join('\n'),
        '',
      ),
  handler: async (argv) => {
    const consoleUrl = parseServiceUrl(argv['console-url'], 'The console URL', EXIT.usage);
    const out = resolve(pathArg('--out', argv.out));
    if (!releaseIdSchema.safeParse(argv.release).success)
      throw new UsageError(
        '--release must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" and "-"',
      );
    if (argv['core-pin'] !== undefined)
      pinOrigin(consoleUrl.origin, parseCorePin(argv['core-pin'], consoleUrl.origin));
    const request = { consoleUrl: consoleUrl.href, release: argv.release, out };
    const provider = argv.provider === undefined ? {} : { provider: argv.provider };
    const made = await makeBundleShown({ ...request, ...provider }, argv.json);
    process.stdout.write(await madeOutput(made, argv.json));
  },
};
