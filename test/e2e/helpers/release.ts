// A release built from the real dist/ (the one-line command downloads that very executable and
// installs it as the node program), into a scratch directory.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
