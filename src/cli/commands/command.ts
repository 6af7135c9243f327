import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Argv, CommandModule } from 'yargs';
import { printCommand, type CommandArgs } from '../print-line.ts';
import { sharedDispatcher } from '../../net/dispatcher.ts';
import { fetchInstallerSha256 } from '../../net/installer-checksum.ts';
import { comment } from '../examples.ts';
import { commandDocumentLine, documentOption } from '../json-contract.ts';

// `oac-node command`: prints the one-line install (or uninstall) command that Web prints
// (BOOT-01…07, docs/one-line-command.md). The enrollment token is read from standard input only,
// never from the command line or the environment (BOOT-05); the installer's checksum comes from
// --installer-sha256 or from the console's /node-install/SHA256SUMS. --json prints the line in
// one document (docs/schema/command.json).

export const commandCommand: CommandModule<object, CommandArgs & { json: boolean }> = {
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
      .option('json', documentOption)
      .example(comment('Print the install line; the token is read from standard input'), '')
      .example('$0 command --core-url https://core.example --installation-id ID < token-file', '')
      .example(comment('Print the uninstall line'), '')
      .example('$0 command --core-url https://core.example --installation-id ID --uninstall', ''),
  handler: async (argv) => {
    let printed = '';
    await printCommand(argv, {
      stdin: process.stdin,
      stdout: (text) => (argv.json ? (printed += text) : process.stdout.write(text)),
      // The shared dispatcher: the proxy variables, and the pin for Core's origin (TRUST-01).
      fetchSha256: (consoleUrl) =>
        fetchInstallerSha256(consoleUrl, { dispatcher: sharedDispatcher() }),
    });
    if (argv.json) process.stdout.write(commandDocumentLine(argv.uninstall, printed));
  },
};
