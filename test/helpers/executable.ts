// The built executable under test. Tests run the real dist/oac-node, never functions
// in-process, wherever the promise is about the program (issue #2).
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const executablePath = `${repoRoot}dist/oac-node`;

/** The test build (`npm run build -- --test-hooks --out dist-test`, scripts/test.sh): the
 *  same program with the crash matrix's hooks (src/host/journal-points.ts), which the release
 *  build lacks (issue #37). */
export const testHooksExecutablePath = `${repoRoot}dist-test/oac-node`;

export function requireTestHooksExecutable(): string {
  if (!existsSync(testHooksExecutablePath)) {
    throw new Error(
      `dist-test/oac-node is missing: run 'npm run build -- --test-hooks --out dist-test' first`,
    );
  }
  return testHooksExecutablePath;
}

export function requireExecutable(): string {
  if (!existsSync(executablePath)) {
    throw new Error(`dist/oac-node is missing: run 'npm run build' first`);
  }
  return executablePath;
}

let forAnyone: string | undefined;

/** A copy of the executable that any account can run, for tests that run it unprivileged: the
 *  checkout may sit in a private (0700) directory, as `mktemp -d` makes them. One per test
 *  process, outside any tree a test compares, removed when the process exits. */
export function executableForAnyone(): string {
  if (forAnyone !== undefined) return forAnyone;
  const dir = mkdtempSync(join(tmpdir(), 'oac-exe-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  const copy = join(dir, 'oac-node');
  copyFileSync(requireExecutable(), copy);
  chmodSync(copy, 0o755);
  forAnyone = copy;
  return copy;
}
