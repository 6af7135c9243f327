// The one-line command as `oac-node command` prints it (BOOT-01…07, docs/one-line-command.md):
// every value checked first, the token read from standard input only, the installer's checksum
// from --installer-sha256 or the console's SHA256SUMS.
import type { Readable } from 'node:stream';
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
} from '../../installer/one-liner.ts';
import { pinOrigin } from '../net/core-pin.ts';
import { UsageError } from '../errors.ts';

export interface CommandArgs {
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
