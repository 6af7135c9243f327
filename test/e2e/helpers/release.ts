// A release built from the real dist/ (the one-line command downloads that very executable and
// installs it as the node program), into a scratch directory.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';

const execFileAsync = promisify(execFile);
import { buildRelease } from '../../../fixtures/release/build.ts';
import {
  repoRoot,
  requireExecutable,
  requireTestHooksExecutable,
  testHooksExecutablePath,
} from '../../helpers/executable.ts';

export interface ReleaseOptions {
  /** A second Runtime image layer of this many incompressible bytes (fixtures/release/build.ts),
   *  for a download or an image load that takes a while: default none (busybox alone). */
  runtimePaddingBytes?: number;
  /** The Runtime archive's gzip level (default 9; padding does not compress). */
  runtimeGzipLevel?: number;
  /** The installer is the test build, which reads the crash matrix's hooks (issue #37). */
  testHooks?: boolean;
}

const executableFor = (options: ReleaseOptions) =>
  options.testHooks === true ? requireTestHooksExecutable() : requireExecutable();

export async function releaseFromDist(
  outDir: string,
  options: ReleaseOptions = {},
): Promise<string> {
  const { testHooks, ...release } = options;
  const exe = executableFor({ testHooks });
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  await buildRelease({
    executable: exe,
    executableGz: `${exe}.gz`,
    outDir,
    version: pkg.version,
    ...release,
  });
  return outDir;
}

/** Where the releases of dist/ are built once for every test file of a run (issue #28: each
 *  file built its own, 1.8 s of copying and hashing 120 MB, 27 times a tier). */
const RELEASE_CACHE = join(tmpdir(), 'oac-e2e-releases');

/** dist/'s release with `options`, built once per dist/ build: a directory named by dist's
 *  files' stamps and the options, made complete under another name and renamed into place (a
 *  file that loses the race to build it throws its own away). Releases of older dist/ builds
 *  are removed when a new one is made. Never written to: testRelease() hands out copies. */
async function cachedRelease(options: ReleaseOptions): Promise<string> {
  executableFor(options); // says which build is missing, if one is
  const stamp = (path: string) => {
    if (!existsSync(path)) return null;
    const st = statSync(path);
    return [st.size, st.mtimeMs, st.ino];
  };
  const hash = (value: unknown) =>
    createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
  // Both builds of one `scripts/test.sh` run (the release and the test build) are one build
  // here: a release of one never drops the other's.
  const builds = [requireExecutable(), testHooksExecutablePath];
  const build = hash(builds.flatMap((path) => [stamp(path), stamp(`${path}.gz`)]));
  const key = `${build}-${hash(options)}`;
  const dir = join(RELEASE_CACHE, key);
  mkdirSync(RELEASE_CACHE, { recursive: true, mode: 0o700 });
  // What the hosts are served: a directory someone else made (in /tmp) is never used.
  const own = lstatSync(RELEASE_CACHE);
  if (!own.isDirectory() || own.uid !== process.getuid?.() || (own.mode & 0o077) !== 0)
    throw new Error(`${RELEASE_CACHE} is not this user's private directory: remove it`);
  if (existsSync(join(dir, 'r', 'manifest.json'))) return join(dir, 'r');
  dropStaleReleases(build);
  const building = mkdtempSync(join(RELEASE_CACHE, `${key}.building-`));
  await releaseFromDist(join(building, 'r'), options);
  try {
    renameSync(building, dir);
  } catch {
    rmSync(building, { recursive: true, force: true }); // built meanwhile by another file
  }
  return join(dir, 'r');
}

/** Removes the cached releases of other dist/ builds than `build` (not those being built), and
 *  with them their installed hosts (harness/installed.ts): a dist/ rebuilt while a run still
 *  boots hosts of the old one leaves that run without its layer (rebuild between runs). */
function dropStaleReleases(build: string): void {
  for (const name of readdirSync(RELEASE_CACHE))
    if (/^[0-9a-f]{16}-[0-9a-f]{16}$/.test(name) && !name.startsWith(`${build}-`))
      rmSync(join(RELEASE_CACHE, name), { recursive: true, force: true });
}

/** This test file's release of dist/, on first use (so no hook order matters): a copy of the
 *  run's cached release made of hard links (instant; serveInstaller replaces a file, never
 *  writes through one), in a scratch directory removed after the file's tests. */
export interface TestRelease {
  /** This file's copy of the release (Core's --release-dir). */
  dir(): Promise<string>;
  /** The run's cache of this release: root's private directory, removed with the dist/ build it
   *  was made of; what other caches made from this release keep (harness/installed.ts). */
  cacheDir(): Promise<string>;
}

export function testRelease(options: ReleaseOptions = {}): TestRelease {
  let scratch: string | undefined;
  let built: Promise<string> | undefined;
  after(() => {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });
  return {
    dir() {
      built ??= (async () => {
        const cached = await cachedRelease(options);
        scratch = mkdtempSync(join(tmpdir(), 'oac-e2e-release-'));
        execFileSync('cp', ['-al', cached, join(scratch, 'r')]);
        return join(scratch, 'r');
      })();
      return built;
    },
    cacheDir: async () => dirname(await cachedRelease(options)),
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
        // A test release: the upgrade's crash points kill it (src/host/journal-points.ts).
        args.push('--test-hooks');
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
  for (const name of ['oac-node.gz', 'SHA256SUMS']) {
    // Beside it, then over it: the release's files are hard links to the run's cached release,
    // which a write through would change for every other test file.
    const dest = join(releaseDir, 'node-install', name);
    copyFileSync(join(installerDir, name), `${dest}.new`);
    renameSync(`${dest}.new`, dest);
  }
}
