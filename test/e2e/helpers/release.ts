// A release built from the real dist/ (the one-line command downloads that very executable and
// installs it as the node program), into a scratch directory.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

const execFileAsync = promisify(execFile);
import { buildRelease } from '../../../fixtures/release/build.ts';
import { requireExecutable, repoRoot } from '../../helpers/executable.ts';

export interface ReleaseOptions {
  /** A second Runtime image layer of this many incompressible bytes (fixtures/release/build.ts),
   *  for a download or an image load that takes a while: default none (busybox alone). */
  runtimePaddingBytes?: number;
  /** The Runtime archive's gzip level (default 9; padding does not compress). */
  runtimeGzipLevel?: number;
}

export async function releaseFromDist(
  outDir: string,
  options: ReleaseOptions = {},
): Promise<string> {
  const exe = requireExecutable();
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  await buildRelease({
    executable: exe,
    executableGz: `${exe}.gz`,
    outDir,
    version: pkg.version,
    ...options,
  });
  return outDir;
}

/** This test file's release of dist/, built in a scratch directory on first use (so no hook
 *  order matters) and removed after the file's tests. */
export function testRelease(options: ReleaseOptions = {}): { dir(): Promise<string> } {
  let scratch: string | undefined;
  let built: Promise<string> | undefined;
  after(() => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });
  return {
    dir() {
      built ??= (async () => {
        scratch = mkdtempSync(join(tmpdir(), 'oac-e2e-release-'));
        return releaseFromDist(join(scratch, 'r'), options);
      })();
      return built;
    },
  };
}

/** UPG-01: the same program stamped as a newer version (the next patch release's test
 *  pre-release, above the package's own), built into a scratch directory once per file:
 *  dist/'s layout (oac-node, oac-node.gz, SHA256SUMS), so a console can serve it. UPG-02:
 *  `fault` makes it broken on purpose (src/built-fault.ts). */
export function newerExecutable(fault?: 'exit-at-start' | 'never-ready' | 'prepare-fails'): {
  build(): Promise<{ dir: string; version: string }>;
} {
  let scratch: string | undefined;
  let built: Promise<{ dir: string; version: string }> | undefined;
  after(() => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });
  return {
    build() {
      built ??= (async () => {
        scratch = mkdtempSync(join(tmpdir(), 'oac-e2e-newer-'));
        const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
          version: string;
        };
        const [major, minor, patch] = pkg.version.split('.').map(Number);
        // A broken release is newer than the good one (test.2 > test.1), as a bad release
        // after a good one is: upgrading from the good one to it is no downgrade.
        const next = `${major}.${minor}.${(patch ?? 0) + 1}`;
        const version = fault === undefined ? `${next}-test.1` : `${next}-test.2.${fault}`;
        const args = [
          '--import',
          'tsx',
          'scripts/build.ts',
          '--version',
          version,
          '--out',
          scratch,
        ];
        if (fault !== undefined) args.push('--fault', fault);
        // Asynchronous: a file starts its builds while its hosts boot (the build takes seconds).
        await execFileAsync(process.execPath, args, { cwd: repoRoot }).catch((error: unknown) => {
          throw new Error(`building ${version} failed: ${String(error)}`);
        });
        return { dir: scratch, version };
      })();
      return built;
    },
  };
}

/** The console of `releaseDir` serves the installer in `installerDir` (dist/'s layout) from
 *  now on: its oac-node.gz and SHA256SUMS, as a new release's console would. */
export function serveInstaller(releaseDir: string, installerDir: string): void {
  for (const name of ['oac-node.gz', 'SHA256SUMS'])
    copyFileSync(join(installerDir, name), join(releaseDir, 'node-install', name));
}
