// A release built from the real dist/ (the one-line command downloads that very executable and
// installs it as the node program), into a scratch directory.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
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

/** This test file's release of dist/: built in a scratch directory before its tests (register
 *  it before hooks that need it), removed after them. `dir` is set once the hook ran. */
export function testRelease(): { readonly dir: string } {
  const release = { dir: '' };
  let scratch = '';
  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'oac-e2e-release-'));
    release.dir = await releaseFromDist(join(scratch, 'r'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));
  return release;
}
