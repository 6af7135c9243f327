// A bad command line in one line of our own words (issue #39 item 8), never yargs' raw text:
// the option or argument to fix, what it takes, and the help of the command it was given to.
// yargs' messages are read in English (main.ts sets its locale), and only to learn which case
// it was; anything unrecognised keeps yargs' words, flattened to one line.
import { UsageError } from '../errors.ts';
import { PROGRAM } from '../version.ts';

export interface UsageContext {
  /** The command the line named, if any. */
  command?: string;
  /** Its usage as its module declares it: `apply <file>`, `completion [shell]`. */
  usage?: string;
  /** The arguments as given. */
  args: readonly string[];
}

export const seeHelp = (command?: string): string =>
  `(see '${PROGRAM}${command === undefined ? '' : ` ${command}`} --help')`;

/** yargs' complaint as one line. */
export function usageLine(msg: string, ctx: UsageContext): string {
  const see = seeHelp(ctx.command);
  const missing = /^Missing required arguments?: ([a-z, -]+)$/.exec(msg)?.[1];
  if (missing !== undefined) return requiredLine(missing.split(', '));
  const choice = /^Invalid values:\s+Argument: ([a-z-]+), Given: (.*), Choices: (.*)$/s.exec(msg);
  if (choice !== null) return choiceLine(choice[1] ?? '', choice[2] ?? '', choice[3] ?? '', ctx);
  if (/^Not enough non-option arguments/.test(msg)) return positionalLine(ctx, 'needs');
  if (/^Too many non-option arguments/.test(msg)) return positionalLine(ctx, 'takes only');
  const unknown = /^Unknown arguments?: (.+)$/.exec(msg)?.[1];
  if (unknown !== undefined && !unknown.startsWith('-')) return extraWordLine(unknown, ctx);
  const following = /^Not enough arguments following: ([a-z-]+)$/.exec(msg)?.[1];
  if (following !== undefined) return `--${following} needs a value ${see}`;
  return `${msg.replace(/\s*\n\s*/g, '; ')} ${see}`;
}

function requiredLine(names: string[]): string {
  const flags = names.map((name) => `--${name}`);
  const last = flags.pop() ?? '';
  return flags.length === 0
    ? `${last} is required`
    : `${flags.join(', ')} and ${last} are required`;
}

/** `--provider must be docker or microsandbox, not "podman"`; a positional without dashes. */
function choiceLine(name: string, given: string, choices: string, ctx: UsageContext): string {
  const isOption = ctx.args.some((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const allowed = [...choices.matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? '');
  const last = allowed.pop() ?? '';
  const list = allowed.length === 0 ? last : `${allowed.join(', ')} or ${last}`;
  return `${isOption ? `--${name}` : name} must be ${list}, not ${given.split(', ')[0] ?? given} ${seeHelp(ctx.command)}`;
}

/** `apply needs its FILE: oac-node apply FILE` from the module's `apply <file>`. */
function positionalLine(ctx: UsageContext, what: 'needs' | 'takes only'): string {
  const usage = ctx.usage ?? ctx.command ?? '';
  const words = usage.split(' ');
  const named = words.slice(1).map((w) => w.replace(/[<>[\]]/g, '').toUpperCase());
  const shown = [words[0] ?? '', ...named].join(' ');
  const args = named.length === 0 ? 'no argument' : named.join(' ');
  return `${words[0] ?? 'The command'} ${what} ${args}: ${PROGRAM} ${shown} ${seeHelp(ctx.command)}`;
}

/** A word the command does not take: `completion takes one SHELL, not also "zsh"`, `status
 *  takes options only, not "everything"`. */
function extraWordLine(words: string, ctx: UsageContext): string {
  const first = words.split(', ')[0] ?? words;
  const shown = JSON.stringify(first.slice(0, 40));
  const positionals = (ctx.usage ?? '').split(' ').slice(1);
  const command = ctx.command ?? 'The command';
  const takes =
    positionals.length === 0
      ? 'takes options only'
      : `takes one ${positionals.map((w) => w.replace(/[<>[\]]/g, '').toUpperCase()).join(' ')}`;
  const also = positionals.length === 0 ? '' : 'also ';
  return `${command} ${takes}, not ${also}${shown} ${seeHelp(ctx.command)}`;
}

export interface KnownOptions {
  /** Every option's name and alias the command takes, global ones included. */
  names: ReadonlySet<string>;
  /** The options that take a list, and so may be given more than once. */
  lists: ReadonlySet<string>;
  /** The options that take a value (not booleans, not counts). */
  valued: ReadonlySet<string>;
}

/** The line's own problems yargs would say worse or not at all, refused before its checks: an
 *  unknown option (with the one it is closest to, even when a required one is missing, which
 *  yargs would name instead), a value option given without its value, one given twice. */
export function refuseOptionMistakes(ctx: UsageContext, known: KnownOptions): void {
  const see = seeHelp(ctx.command);
  const end = ctx.args.indexOf('--');
  const args = end < 0 ? ctx.args : ctx.args.slice(0, end);
  const seen = new Map<string, number>();
  args.forEach((arg, i) => {
    const name = optionName(arg);
    if (name === undefined) return;
    if (!known.names.has(name) && !known.names.has(name.replace(/^no-/, '')))
      throw new UsageError(unknownLine(arg, name, known, see));
    seen.set(name, (seen.get(name) ?? 0) + 1);
    const next = args[i + 1];
    const valueMissing = !arg.includes('=') && (next === undefined || next.startsWith('-'));
    if (known.valued.has(name) && valueMissing)
      throw new UsageError(`--${name} needs a value ${see}`);
  });
  for (const [name, count] of seen)
    if (count > 1 && known.valued.has(name) && !known.lists.has(name))
      throw new UsageError(`--${name} is given ${count} times: give it once ${see}`);
}

/** `--core-ur` → `core-ur`; a short flag (`-h`) or a plain word → undefined. */
function optionName(arg: string): string | undefined {
  return /^--([A-Za-z0-9][A-Za-z0-9-]*)(=|$)/.exec(arg)?.[1];
}

function unknownLine(arg: string, name: string, known: KnownOptions, see: string): string {
  const shown = arg.split('=')[0] ?? arg;
  const closest = [...known.names]
    .filter((n) => n.length > 1)
    .map((n) => ({ n, d: editDistance(name, n) }))
    .sort((a, b) => a.d - b.d)[0];
  const hint = closest !== undefined && closest.d <= 2 ? `; did you mean --${closest.n}?` : '';
  return `Unknown option ${shown.slice(0, 40)}${hint} ${see}`;
}

/** Levenshtein distance of two short words. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
