// What the executable answers without loading the parser or the bundle's code (issues #13 and
// #41): `--version` and the top-level `--help`, printed as yargs prints them (compared in
// test/host/executable.test.ts), and the one line for a standard output that cannot be written.
// Shared by the executable's own entry (src/cli/executable-main.ts) and the bundle's
// (src/cli/entry.ts), so neither can drift from the other.
import { writeStdoutDirect } from '../host/stdout-direct.ts';
import { VERSION } from '../version.ts';

// The top-level help, rendered by yargs when `npm run build` made this executable
// (scripts/build.ts). Undefined under tsx.
declare const OAC_BUILT_HELP: string | undefined;
const builtHelp = typeof OAC_BUILT_HELP === 'string' ? OAC_BUILT_HELP : undefined;

/** The text for `--version` or `--help` given alone, or undefined when the parser must run. */
export function quickAnswer(args: readonly string[]): string | undefined {
  if (args.length !== 1) return undefined;
  const [only] = args;
  if (only === '--version' || only === '-V') return `${VERSION}\n`;
  if (only === '--help' || only === '-h') return builtHelp;
  return undefined;
}

/** Writes a quick answer straight to descriptor 1: process.stdout's stream, built on first use,
 *  was about 5 ms of a 24 ms `--version` (issue #41; bench/README.md). What cannot be written so
 *  (a full non-blocking pipe, a full disk, a descriptor open only for reading) goes on through
 *  process.stdout, whose error handler says why in one line (onUnwritableStdout); a reader that
 *  went away (EPIPE) is no failure, as there. */
export function writeQuickAnswer(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  try {
    writeStdoutDirect(bytes);
  } catch (error) {
    const { code, written } = error as NodeJS.ErrnoException & { written: number };
    if (code === 'EPIPE') return;
    process.stdout.on('error', onUnwritableStdout);
    process.stdout.write(bytes.subarray(written));
  }
}

/** Issue #39: standard output that cannot be written (a full disk, a file opened read-only) ends
 *  the run in one line naming why, exit 1 (a failure, as the exit-status table says:
 *  src/exit-statuses.ts), not a stack. A reader that went away (EPIPE: `| head`) is no failure of
 *  the run: it goes on to its own end and status. A command that stops on its own (the node half
 *  stops at a step boundary: src/cli/commands/prepare.ts) listens itself, and is left to it. */
export function onUnwritableStdout(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE' || process.stdout.listenerCount('error') > 1) return;
  // The message table loads only here: a run whose output is written never needs it.
  void import('../messages.ts').then(({ message }) => {
    const reason = error.code ?? error.message;
    process.stderr.write(`oac-node: ${message('stdout_unwritable', { reason })}\n`);
    process.exit(1);
  });
}
