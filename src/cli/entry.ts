// The executable's entry point. No top-level await: the single executable is built from a
// CommonJS bundle (recipes/single-executable.md, pitfall 3).
import { restartWithoutWeakening, weakeningVariables } from '../host/clean-env.ts';
import { runCli } from './main.ts';

async function main(): Promise<void> {
  if (weakeningVariables(process.env).length > 0) {
    process.exitCode = await restartWithoutWeakening();
    return;
  }
  const code = await runCli(process.argv.slice(2), {
    stderr: (text) => process.stderr.write(text),
  });
  process.exitCode = code;
}

void main();
