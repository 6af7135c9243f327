import { COMMAND_SUMMARIES } from '../summaries.ts';
import { coreUrlArg, pathArg } from '../options.ts';
import type { Argv, CommandModule } from 'yargs';
import { registerNode } from '../../node/register.ts';
import { printable } from '../../ui/printable.ts';
import { parseCorePin, pinOrigin } from '../../net/core-pin.ts';
import { comment } from '../examples.ts';
import { MACHINE_ID_FILE, readHostId } from '../../node/host-id.ts';

interface RegisterArgs {
  config: string;
  'state-dir': string;
  'core-url': string;
  name: string;
  'enrollment-token-file': string;
  'core-pin'?: string;
}

export const registerCommand: CommandModule<object, RegisterArgs> = {
  command: 'register',
  describe: COMMAND_SUMMARIES.register,
  builder: (yargs: Argv) =>
    yargs
      .option('config', {
        type: 'string',
        demandOption: true,
        describe: 'The provider file (JSON)',
      })
      .option('state-dir', {
        type: 'string',
        demandOption: true,
        describe: "The node's state directory",
      })
      .option('core-url', { type: 'string', demandOption: true, describe: "Core's public URL" })
      .option('core-pin', {
        type: 'string',
        describe: "Trust only this key for Core: sha256:<hex> of its CA's public key",
      })
      .option('name', { type: 'string', demandOption: true, describe: "The node's display name" })
      .option('enrollment-token-file', {
        type: 'string',
        demandOption: true,
        describe: 'File holding the enrollment token (mode 0600; never pass the token itself)',
      })
      .example(comment('Manual registration (docs/manual-registration.md), as root'), '')
      .example(
        [
          '$0 register --config /var/lib/oac/provider.json --state-dir /var/lib/oac/node \\',
          '    --core-url https://core.example --name worker-1 \\',
          '    --enrollment-token-file /var/lib/oac/enrollment-token',
        ].join('\n'),
        '',
      ),
  handler: async (argv) => {
    const origin = coreUrlArg(argv['core-url']);
    const corePin = argv['core-pin'] === undefined ? null : parseCorePin(argv['core-pin'], origin);
    pinOrigin(origin, corePin);
    const { outcome, identity } = await registerNode({
      corePin,
      configPath: pathArg('--config', argv.config),
      stateDir: pathArg('--state-dir', argv['state-dir']),
      coreUrl: argv['core-url'],
      name: argv.name,
      tokenFile: pathArg('--enrollment-token-file', argv['enrollment-token-file']),
      managed: false,
      hostId: await readHostId(MACHINE_ID_FILE),
    });
    const what = {
      registered: 'Registered',
      recovered: 'Registered (recovered a lost answer)',
      unchanged: 'Already registered',
      repinned: "Already registered; the pin of Core's key is updated",
      rehosted: 'Already registered; the host it belongs to is recorded',
    }[outcome];
    process.stdout.write(
      `${printable(`${what}: node ${identity.node_id} (${identity.name}) with Core at ${identity.core_url}`)}\n`,
    );
  },
};
