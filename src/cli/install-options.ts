// The install command's options and examples (src/cli/commands/install.ts), as --help shows
// them.
import type { Argv } from 'yargs';
import { jsonOption, planOutOption, quietOption, timeoutOption } from './options.ts';
import { comment } from './examples.ts';

export interface InstallArgs {
  'core-url'?: string;
  'core-pin'?: string;
  bundle?: string;
  'manifest-sha256'?: string;
  'installation-id'?: string;
  'checkpoint-root'?: string;
  name?: string;
  'dry-run': boolean;
  'plan-out'?: string;
  'allow-downgrade': boolean;
  'same-host': boolean;
  json: boolean;
  quiet: boolean;
  timeout: string;
  root?: string;
}

/** The install command's yargs builder. */
export const installOptions = (yargs: Argv) =>
  yargs
    // Marked [required] in --help; missing, each is one line (src/cli/main.ts, usageLine).
    .option('core-url', { type: 'string', demandOption: true, describe: "Core's public URL" })
    .option('core-pin', {
      type: 'string',
      describe:
        "Trust only this key for Core: sha256:<hex> of its CA's public key (none: the host's CAs; default: the node's recorded pin)",
    })
    .option('installation-id', {
      type: 'string',
      demandOption: true,
      describe: "The Core installation's ID",
    })
    .option('bundle', {
      type: 'string',
      describe: 'Take the release files from this bundle (oac-node bundle), not from the console',
    })
    .option('manifest-sha256', {
      type: 'string',
      describe:
        "With --bundle: the SHA-256 of the bundle's manifest, as oac-node bundle printed it",
    })
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
      describe: 'Print the plan and change nothing (exit 2 if something would change)',
    })
    .option('plan-out', planOutOption)
    .option('allow-downgrade', {
      type: 'boolean',
      default: false,
      describe: 'Put this (older) program in place of the newer one the host runs',
    })
    .option('same-host', {
      type: 'boolean',
      default: false,
      describe:
        "Confirm that this is the node's own host, whose machine ID was changed on purpose (not a copy)",
    })
    .option('json', jsonOption)
    .option('quiet', quietOption)
    .option('timeout', timeoutOption)
    // The pasted line's shape (docs/one-line-command.md): the token comes on stdin, never
    // as an argument, where ps and sudo's log would show it.
    .example(
      comment('What the line from Web runs: the token on standard input, never an argument'),
      '',
    )
    .example(
      'sudo $0 install --core-url https://core.example --installation-id ID < token-file',
      '',
    )
    .example(comment('On a node: show what a rerun would change (exit 2 if anything)'), '')
    .example(
      'sudo $0 install --core-url https://core.example --installation-id ID --dry-run < /dev/null',
      '',
    );
