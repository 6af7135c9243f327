// The command line: yargs with the commands of docs/design.md. Parsing errors become one line and
// exit 64 (EX_USAGE); OacErrors their own line and exit status; anything else is a bug with a stack.
import { EXIT, ExitStatus, UsageError, isOacError } from '../errors.ts';
import { decideOperatorShell } from '../ui/operator-shell.ts';
import { renderError } from '../ui/render-error.ts';
import { decideColour } from '../ui/colour.ts';
import { printableJson } from '../ui/printable.ts';
import { errorEvent, wasReported } from './error-event.ts';
import { PROGRAM, VERSION } from '../version.ts';
import type { CommandModule } from 'yargs';
import { COMMAND_SUMMARIES } from './summaries.ts';
import { COMMAND_TABLE } from './command-table.ts';
import { checkTestHooks } from '../host/journal-points.ts';
import { exitHelp } from './exit-help.ts';
import type { ExitSource } from '../exit-statuses.ts';
import type { Argv } from 'yargs';
import {
  editDistance,
  refuseOptionMistakes,
  seeHelp,
  usageLine,
  type UsageContext,
  type KnownOptions,
} from './usage-line.ts';

export interface CliIo {
  stderr: (text: string) => void;
  stdout: (text: string) => void;
  /** Issue #41: set when this process must not run a command (the environment weakens it:
   *  src/host/clean-env.ts). Help, the version and a bad command line are answered here; a
   *  command that passed the parser runs in the process this starts instead, its status ours. */
  insteadOfCommand?: () => Promise<number>;
}

/** --json anywhere among the arguments (yargs takes it before or after the command). */
function wantsJson(args: string[]): boolean {
  return args.includes('--json') || args.includes('--json=true');
}

const COMMANDS = new Set(COMMAND_TABLE.map((c) => c.name));

/**
 * The guide's recovery line runs the installer with `--uninstall` and no command
 * (`sudo ~/.oac/node-bootstrap/<sha256> --uninstall --installation-id ID --force`), and older
 * lines as `install --uninstall`: both read as the uninstall command. Their `--core-url` goes:
 * an uninstall asks Core at the address the node recorded.
 */
export function normaliseArgs(args: string[]): string[] {
  const first = args[0];
  // The first word that is no option (global options such as --no-color may come before it).
  const at = args.findIndex((a, i) => !a.startsWith('-') && args[i - 1] !== '--root');
  const word = at < 0 ? undefined : args[at];
  // `--version --json`: the version command's document (issue #39 item 6).
  const version = (a: string) => a === '--version' || a === '-V';
  if (word === undefined && args.includes('--json') && args.some(version))
    return ['version', ...args.filter((a) => !version(a))];
  // `oac-node help install` as git and kubectl take it: that command's --help.
  if (word === 'help') {
    const named = args[at + 1];
    const before = args.slice(0, at);
    return named === undefined ? [...before, '--help'] : [...before, named, '--help'];
  }
  if (!args.includes('--uninstall')) return args;
  if (first !== undefined && COMMANDS.has(first) && first !== 'install') return args;
  const rest = first === 'install' ? args.slice(1) : args;
  return ['uninstall', ...withoutCoreUrl(rest.filter((a) => a !== '--uninstall'))];
}

function withoutCoreUrl(args: string[]): string[] {
  return args.filter(
    (a, i) => a !== '--core-url' && !a.startsWith('--core-url=') && args[i - 1] !== '--core-url',
  );
}

export async function runCli(args: string[], io: CliIo): Promise<number> {
  decideOperatorShell(args, process.env);
  decideColour(args, process.env);
  try {
    checkTestHooks(); // a test build's hooks, refused before anything (none in a release)
    const normalised = normaliseArgs(args);
    // Bare `oac-node`: what it can do, as --help says it, and the status of a bad command line.
    if (normalised.length === 0) {
      io.stderr(`${await (await buildParser(['--help'], undefined, undefined)).getHelp()}\n`);
      return EXIT.usage;
    }
    // The first word that names a command, as yargs would find it after global options
    // (`--no-color install …`).
    const named = normalised.find((a) => COMMANDS.has(a));
    if (named === undefined) refuseUnknownCommand(normalised);
    const wanted = COMMAND_TABLE.find((c) => c.name === named);
    const loaded = wanted === undefined ? undefined : await wanted.load();
    // The installer's own child takes no option (its request comes on stdin): it starts on
    // every install and rerun, so it does without the parser (issue #13).
    if (named === '_prepare' && normalised.length === 1) {
      if (io.insteadOfCommand !== undefined) return await io.insteadOfCommand();
      await (loaded as CommandModule).handler({ _: ['_prepare'], $0: PROGRAM });
      return EXIT.ok;
    }
    const parser = await buildParser(normalised, loaded, named);
    // After validation, before the handler: only a command line that would run gets here.
    const instead = io.insteadOfCommand;
    if (instead !== undefined)
      parser.middleware(async () => {
        throw new ExitStatus(await instead());
      });
    await parser.parseAsync();
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ExitStatus) return error.status;
    // --json: a failure before the command's own events (not root, a bad option) is an error
    // event too, so a script reads JSON from the first line whatever went wrong (issue #25).
    if (wantsJson(args) && !wasReported(error)) io.stdout(`${printableJson(errorEvent(error))}\n`);
    io.stderr(`${renderError(error)}\n`);
    return isOacError(error) ? error.exitCode : EXIT.failure;
  }
}

// Where each task is explained: the repository's docs/, and on a node the manual page.
export const GUIDES = [
  "Guides (docs/ in oac-node's source; on a node: man oac-node):",
  ...[
    ['add, rerun or remove a node', 'docs/operator-guide.md'],
    ['the line from Web, step by step', 'docs/one-line-command.md'],
    ['proxies, slow links, resuming', 'docs/downloads.md'],
    ['every message and its hint', 'docs/messages.md'],
    ['something went wrong', 'docs/troubleshooting.md'],
    ['what is protected, and how', 'docs/security.md'],
  ].map(([task, page]) => `  ${(task ?? '').padEnd(34)}${page ?? ''}`),
].join('\n');

/** The command as its module defines it, its --help ending with its exit statuses and the
 *  guides (issue #39 item 3: one table, src/exit-statuses.ts). */
function withExitHelp(module: CommandModule, name: string, summary: string | false): CommandModule {
  const own = module.builder;
  const builder = (yargs: Argv): Argv => {
    const built = typeof own === 'function' ? (own(yargs) as Argv) : yargs.options(own ?? {});
    return built.epilog(`${exitHelp(name as ExitSource)}\n\n${GUIDES}`);
  };
  return { ...module, describe: summary, builder };
}

/** What the command being parsed takes, from yargs' own table of its options. */
function knownOptions(y: unknown): KnownOptions {
  // The instance yargs hands a middleware (its types leave the argument out).
  const o = (y as { getOptions: () => unknown }).getOptions() as {
    key: Record<string, unknown>;
    alias: Record<string, string[]>;
    array: string[];
    string: string[];
    number: string[];
  };
  const names = new Set([...Object.keys(o.key), ...Object.values(o.alias).flat()]);
  return {
    names,
    lists: new Set(o.array),
    valued: new Set([...o.string, ...o.number]),
  };
}

function notLoaded(name: string): () => never {
  return () => {
    throw new Error(`the ${name} command ran without its code (please report it)`);
  };
}

async function buildParser(args: string[], loaded: object | undefined, named: string | undefined) {
  const { default: yargs } = await import('yargs');
  const usage = (loaded as { command?: unknown } | undefined)?.command;
  const ctx: UsageContext = {
    command: named,
    usage: typeof usage === 'string' ? usage : undefined,
    args,
  };
  let parser = yargs(args);
  withoutHelpCaching(parser);
  for (const { name } of COMMAND_TABLE) {
    // The requested command in full; the others as a name and a line, for --help. A listed
    // command never runs without its code: were yargs to pick one, it would say so, not
    // succeed silently.
    const summary = (COMMAND_SUMMARIES as Record<string, string | false>)[name] ?? false;
    parser =
      loaded !== undefined && name === named
        ? parser.command(withExitHelp(loaded as CommandModule, name, summary))
        : parser.command({ command: name, describe: summary, handler: notLoaded(name) });
  }
  return (
    parser
      .scriptName(PROGRAM)
      .usage(
        `${PROGRAM} ${VERSION}: turns a Linux host into a sandbox node of a Core\n\nUsage: $0 <command> [options]`,
      )
      // An explicit version: otherwise yargs reads the package.json nearest the working
      // directory (docs/single-executable.md, pitfall 7).
      .version(VERSION)
      .option('color', {
        type: 'boolean',
        default: true,
        describe:
          'Colour the output: on a terminal by default; --color also on a pipe; --no-color or NO_COLOR=1: never',
      })
      // Hidden: every host path under DIR, for tests and image building only (docs/design.md).
      .option('root', { type: 'string', hidden: true })
      // Hidden: the pasted line ran this through sudo, so hints say sudo (src/ui/operator-shell.ts).
      .option('sudo', { type: 'boolean', hidden: true })
      .demandCommand(
        1,
        'Name a command: install, uninstall, status, apply, show-plan, register, run, command, bundle, diagnose, version or completion',
      )
      .strict()
      // Options keep the one spelling --help shows: no --dryRun beside --dry-run (issue #25).
      .parserConfiguration({ 'camel-case-expansion': false })
      // yargs' own words in English whatever LANG the line passed on: usageLine reads them.
      .locale('en')
      .exitProcess(false)
      .middleware(
        ((_argv: unknown, y: unknown) => refuseOptionMistakes(ctx, knownOptions(y))) as never,
        true,
      )
      .fail((msg: string | null, err: Error | undefined) => {
        if (err !== undefined) throw err;
        throw new UsageError(usageLine(msg ?? 'invalid arguments', ctx));
      })
      // Where each task is explained: the repository's docs/, and on a node the manual page.
      .epilog(GUIDES)
      .help()
      // -h and -V, as most command lines take them (issue #25).
      .alias('h', 'help')
      .alias('V', 'version')
      .wrap(100)
  );
}

/** Issue #41: yargs renders the running command's whole help as the command starts (about 40 ms
 *  of string widths on every run), only to keep it for a failure message it would print. Ours
 *  never does: .fail() above throws, and the error is one line of our own (./usage-line.ts). */
function withoutHelpCaching(parser: object): void {
  // yargs' internals: another version without them only costs the time again.
  type Usage = { cacheHelpMessage?: () => void };
  type Internals = { getInternalMethods?: () => { getUsageInstance?: () => Usage } };
  const usage = (parser as Internals).getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

/** A first word that names no command (`oac-node instal …`) is said as such, with the command
 *  it is closest to, instead of yargs' list of every option as an unknown argument (issue #25). */
function refuseUnknownCommand(args: string[]): void {
  // Not the value of an option before it (`--installation-id abc`): the first word that
  // follows no `--name` without `=`.
  const word = args.find(
    (a, i) => !a.startsWith('-') && !(args[i - 1]?.startsWith('--') && !args[i - 1]?.includes('=')),
  );
  if (word === undefined || !/^[a-z][a-z-]{0,30}$/.test(word)) return;
  const public_ = COMMAND_TABLE.map((c) => c.name).filter((n) => !n.startsWith('_'));
  const closest = public_
    .map((name) => ({ name, distance: editDistance(word, name) }))
    .sort((a, b) => a.distance - b.distance)[0];
  const flag = word === 'help' || word === 'version' ? `--${word}` : undefined;
  const suggestion =
    flag !== undefined
      ? `; did you mean ${flag}?`
      : closest !== undefined && closest.distance <= 2
        ? `; did you mean ${closest.name}?`
        : '';
  throw new UsageError(`Unknown command: ${word}${suggestion} ${seeHelp()}`);
}
