import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Readable } from 'node:stream';
import type { Argv, CommandModule } from 'yargs';
import {
  renderInstallCommand,
  renderUninstallCommand,
  validateConsoleUrl,
  validateCoreUrl,
  validateInstallationId,
  validateSha256,
  validateBundlePath,
  validateCorePin,
  validateToken,
} from '../../../installer/one-liner.ts';
import { pinOrigin } from '../../net/core-pin.ts';
import { sharedDispatcher } from '../../net/dispatcher.ts';
import { UsageError } from '../../errors.ts';
import { fetchInstallerSha256 } from '../../net/installer-checksum.ts';
import { comment } from '../examples.ts';

// `oac-node command`: prints the one-line install (or uninstall) command that Web prints
// (BOOT-01…07, docs/one-line-command.md). The enrollment token is read from standard input only,
// never from the command line or the environment (BOOT-05); the installer's checksum comes from
// --installer-sha256 or from the console's /node-install/SHA256SUMS.

interface CommandArgs {
  'core-url': string;
  'installation-id': string;
  uninstall: boolean;
  force: boolean;
  'console-url'?: string;
  'installer-sha256'?: string;
  'core-pin'?: string;
  bundle?: string;
  'manifest-sha256'?: string;
}

export interface CommandIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: (text: string) => void;
  fetchSha256: (consoleUrl: string) => Promise<string>;
}

/** The most stdin may hold: one token (at most 512 characters) and its line end. */
export const TOKEN_INPUT_MAX_BYTES = 4096;

export const commandCommand: CommandModule<object, CommandArgs> = {
  command: 'command',
  describe: COMMAND_SUMMARIES.command,
  builder: (yargs: Argv) =>
    yargs
      .option('core-url', {
        type: 'string',
        demandOption: true,
        describe: "Core's public URL (https; http only on loopback)",
      })
      .option('installation-id', {
        type: 'string',
        demandOption: true,
        describe: "The Core installation's ID",
      })
      .option('uninstall', {
        type: 'boolean',
        default: false,
        describe: 'Print the uninstall command (reads no token)',
      })
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'With --uninstall: skip asking Core',
      })
      .option('console-url', {
        type: 'string',
        describe: 'Where the console serves /node-install/ (default: the Core URL)',
      })
      .option('core-pin', {
        type: 'string',
        describe:
          "sha256:<hex> of Core's CA public key: the node then trusts that key alone for Core",
      })
      .option('bundle', {
        type: 'string',
        describe:
          'Absolute path of a bundle already copied to the host (oac-node bundle): the line takes everything from it',
      })
      .option('manifest-sha256', {
        type: 'string',
        describe:
          "With --bundle: the SHA-256 of the bundle's manifest, as oac-node bundle printed it",
      })
      .option('installer-sha256', {
        type: 'string',
        describe:
          "SHA-256 of the executable oac-node, not of oac-node.gz (default: the console's SHA256SUMS line for oac-node)",
      })
      .example(comment('Print the install line; the token is read from standard input'), '')
      .example('$0 command --core-url https://core.example --installation-id ID < token-file', '')
      .example(comment('Print the uninstall line'), '')
      .example(
        '$0 command --core-url https://core.example --installation-id ID --uninstall',
        '',
      ) as unknown as Argv<CommandArgs>,
  handler: async (argv) => {
    await printCommand(argv, {
      stdin: process.stdin,
      stdout: (text) => process.stdout.write(text),
      // The shared dispatcher: the proxy variables, and the pin for Core's origin (TRUST-01).
      fetchSha256: (consoleUrl) =>
        fetchInstallerSha256(consoleUrl, { dispatcher: sharedDispatcher() }),
    });
  },
};

export async function printCommand(args: CommandArgs, io: CommandIo): Promise<void> {
  // Every value is checked before anything is read or fetched: bad input is one line, exit 64.
  const coreUrl = validateCoreUrl(args['core-url']);
  const consoleUrl = validateConsoleUrl(args['console-url'] ?? coreUrl);
  const installationId = validateInstallationId(args['installation-id']);
  const given = args['installer-sha256'];
  if (given !== undefined) validateSha256(given);
  if (args.force && !args.uninstall) {
    throw new UsageError('--force goes with --uninstall only');
  }
  const pin = args['core-pin'];
  if (pin !== undefined) pinOrigin(coreUrl, validateCorePin(pin, coreUrl));
  if (args['manifest-sha256'] !== undefined && args.bundle === undefined)
    throw new UsageError('--manifest-sha256 goes with --bundle');
  if (args.bundle !== undefined && !args.uninstall && args['manifest-sha256'] === undefined)
    throw new UsageError(
      "--bundle needs --manifest-sha256: the SHA-256 of the bundle's manifest, as oac-node bundle printed it",
    );
  if (args['manifest-sha256'] !== undefined && !/^[0-9a-f]{64}$/.test(args['manifest-sha256']))
    throw new UsageError('--manifest-sha256 must be 64 lowercase hexadecimal digits');
  const corePin = {
    ...(pin === undefined ? {} : { corePin: pin }),
    ...(args.bundle === undefined
      ? {}
      : { bundle: validateBundlePath(args.bundle), manifestSha256: args['manifest-sha256'] }),
  };
  if (args.uninstall) {
    const installerSha256 = given ?? (await io.fetchSha256(consoleUrl));
    io.stdout(
      `${renderUninstallCommand({ consoleUrl, installationId, installerSha256, force: args.force, ...corePin })}\n`,
    );
    return;
  }
  const token = await readToken(io.stdin);
  const installerSha256 = given ?? (await io.fetchSha256(consoleUrl));
  io.stdout(
    `${renderInstallCommand({ consoleUrl, coreUrl, installationId, installerSha256, token, ...corePin })}\n`,
  );
}

/** One line on stdin: the enrollment token. A terminal is refused, so it is never typed in. */
export async function readToken(stdin: Readable & { isTTY?: boolean }): Promise<string> {
  if (stdin.isTTY === true) {
    throw new UsageError(
      'The enrollment token is read from standard input, not a terminal: redirect it from a file (… < token-file) or pipe it in',
    );
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += buffer.length;
    if (total > TOKEN_INPUT_MAX_BYTES) {
      stdin.destroy();
      throw new UsageError(
        `Standard input must hold one line, the enrollment token (it holds more than ${TOKEN_INPUT_MAX_BYTES} bytes)`,
      );
    }
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text === '') throw new UsageError('Standard input holds no enrollment token');
  if (text.includes('\n')) {
    throw new UsageError('Standard input must hold one line, the enrollment token');
  }
  return validateToken(text);
}
