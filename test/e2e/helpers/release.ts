// A release built from the real dist/ (the one-line command downloads that very executable and
// installs it as the node program), into a scratch directory.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { buildRelease } from '../../../fixtures/release/build.ts';
import { requireExecutable, repoRoot } from '../../helpers/executable.ts';

export async function releaseFromDist(outDir: string): Promise<string> {
  const exe = requireExecutable();
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  await buildRelease({ executable: exe, executableGz: `${exe}.gz`, outDir, version: pkg.version });
  return outDir;
}

/** This test file's release of dist/, built in a scratch directory on first use (so no hook
 *  order matters) and removed after the file's tests. */
export function testRelease(): { dir(): Promise<string> } {
  let scratch: string | undefined;
  let built: Promise<string> | undefined;
  after(() => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });
  return {
    dir() {
      built ??= (async () => {
        scratch = mkdtempSync(join(tmpdir(), 'oac-e2e-release-'));
        return releaseFromDist(join(scratch, 'r'));
      })();
      return built;
    },
  };
}
