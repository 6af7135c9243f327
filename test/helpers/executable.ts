// The built executable under test. Tests run the real dist/oac-node, never functions
// in-process, wherever the promise is about the program (issue #2).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const executablePath = `${repoRoot}dist/oac-node`;

export function requireExecutable(): string {
  if (!existsSync(executablePath)) {
    throw new Error(`dist/oac-node is missing: run 'npm run build' first`);
  }
  return executablePath;
}
