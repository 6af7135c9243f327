// Colour where it helps the eye (issue #25 item 4): the error line, its hint, and the word that
// says what a step did or would do. Decided once at start, per stream: never on a pipe or a file
// (scripts and logs get plain bytes) unless --color asks for it, never with --no-color, NO_COLOR (any non-empty value, as
// no-color.org says) or TERM=dumb. Colour is put around text that is escaped already
// (src/ui/printable.ts): its own escape sequences are the only ones that reach the terminal.
import { Chalk, type ChalkInstance } from 'chalk';

const plain = new Chalk({ level: 0 });
let onStdout: ChalkInstance = plain;
let onStderr: ChalkInstance = plain;

/** Whether the operator allows colour at all (before asking whether a stream is a terminal). */
export function colourAllowed(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const off = args.some((a, i) => a === '--color' && args[i + 1] === 'false');
  if (off || args.includes('--no-color') || args.includes('--color=false')) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}

/** `--color` given (not `--color false`): colour even on a pipe, as `ls --color=always` and
 *  `git --color` do, and over NO_COLOR (no-color.org: a flag the user gives wins). */
export function colourForced(args: readonly string[]): boolean {
  return args.some(
    (a, i) =>
      a === '--color=true' ||
      (a === '--color' && !['false', 'no', '0'].includes(args[i + 1] ?? '')),
  );
}

export function decideColour(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  terminals = { stdout: process.stdout.isTTY === true, stderr: process.stderr.isTTY === true },
): void {
  const forced = colourForced(args);
  const allowed = forced || colourAllowed(args, env);
  onStdout = allowed && (forced || terminals.stdout) ? new Chalk({ level: 1 }) : plain;
  onStderr = allowed && (forced || terminals.stderr) ? new Chalk({ level: 1 }) : plain;
}

/** A step's word (`created`, `remove`, …), padded already: what changes stands out, what
 *  stays is dim. */
export function paintStepWord(word: string, padded: string): string {
  const c = onStdout;
  switch (word) {
    case 'created':
    case 'create':
    case 'updated':
    case 'update':
    case 'replaced':
    case 'replace':
      return c.green(padded);
    case 'removed':
    case 'remove':
      return c.yellow(padded);
    case 'refuse':
      return c.red(padded);
    case 'kept':
    case 'keep':
    case 'adopted':
    case 'adopt':
      return c.cyan(padded);
    default:
      return c.dim(padded);
  }
}

/** The error's first line, on standard error. */
export const paintErrorLine = (line: string): string => onStderr.red.bold(line);
/** The hint's label, on standard error. */
export const paintHintLabel = (label: string): string => onStderr.yellow(label);
