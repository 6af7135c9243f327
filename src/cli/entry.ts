// The bundle's entry point: run by the executable (src/cli/executable-main.ts loads it with its
// code cache) and under tsx. No top-level await: the single executable is built from a CommonJS
// bundle (docs/single-executable.md, pitfall 3). Modules load only when needed (issue #13):
// `--version` loads no parser, and the restart below is the only user of child_process here.
import './zod-jitless.ts';
import { weakeningVariables } from '../host/clean-env-names.ts';
import { onUnwritableStdout, quickAnswer, writeQuickAnswer } from './quick-answers.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = quickAnswer(args);
  if (quick !== undefined) {
    writeQuickAnswer(quick);
    return;
  }
  process.stdout.on('error', onUnwritableStdout);
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
