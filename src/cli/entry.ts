// The executable's entry point. No top-level await: the single executable is built from a
// CommonJS bundle (docs/single-executable.md, pitfall 3). Modules load only when needed
// (issue #13): `--version` loads no parser, and the restart below is the only user of
// child_process here.
import { weakeningVariables } from '../host/clean-env-names.ts';
import { VERSION } from '../version.ts';

// The top-level help, rendered by yargs when `npm run build` made this executable
// (scripts/build.ts): printed without loading the parser (issue #13). Undefined under tsx.
declare const OAC_BUILT_HELP: string | undefined;
const builtHelp = typeof OAC_BUILT_HELP === 'string' ? OAC_BUILT_HELP : undefined;

/** Issue #39: standard output that cannot be written (a full disk, a file opened read-only) ends
 *  the run in one line naming why, exit 1 (a failure, as the exit-status table says:
 *  src/exit-statuses.ts), not a stack. A reader that went away (EPIPE: `| head`) is no failure of the run: it
 *  goes on to its own end and status. A command that stops on its own (the node half stops at a
 *  step boundary: src/cli/commands/prepare.ts) listens itself, and is left to it. */
function onUnwritableStdout(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE' || process.stdout.listenerCount('error') > 1) return;
  void import('../messages.ts').then(({ message }) => {
    const reason = error.code ?? error.message;
    process.stderr.write(`oac-node: ${message('stdout_unwritable', { reason })}\n`);
    process.exit(1);
  });
}

async function main(): Promise<void> {
  process.stdout.on('error', onUnwritableStdout);
  const args = process.argv.slice(2);
  // What yargs prints for it, without loading yargs (tested against it in executable.test.ts).
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h') && builtHelp !== undefined) {
    process.stdout.write(builtHelp);
    return;
  }
  // Issue #41: the version and the help above, and a bad command line, are answered before the
  // clean-environment restart (nothing is at stake in them); a command restarts once, when the
  // parser has passed it.
  const weakened = weakeningVariables(process.env).length > 0;
  const { runCli } = await import('./main.ts');
  process.exitCode = await runCli(args, {
    stderr: (text) => process.stderr.write(text),
    stdout: (text) => process.stdout.write(text),
    ...(weakened ? { insteadOfCommand: restart } : {}),
  });
}

async function restart(): Promise<number> {
  const { restartWithoutWeakening } = await import('../host/clean-env.ts');
  return restartWithoutWeakening();
}

void main();
