// `npm run build`: dist/oac-node (one self-contained Linux x86-64 executable built with Node's
// single-executable-application support), dist/oac-node.gz and dist/SHA256SUMS. Runs offline:
// the base is this machine's own Node binary (docs/single-executable.md).
// `npm run build -- --version V --out DIR`: the same program stamped with another version, in
// DIR (UPG-01: the tests' second release; a release builder's own version). `--fault F`: a
// deliberately broken test release (UPG-02, src/built-fault.ts). `--test-hooks`: a test build
// that reads the crash matrix's OAC_NODE_TEST_* hooks (src/host/journal-points.ts); a release
// build reads none, and holds neither the names nor the code (issue #37).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { BUNDLE_ASSET, CODE_CACHE_ASSET, wrapBundle } from '../src/cli/bundle-code.ts';

const root = resolve(import.meta.dirname, '..');

/** A bad argument: one line and exit 64, never a stack. */
function usage(line: string): never {
  process.stderr.write(`build: ${line}\n`);
  process.exit(64);
}

const { values: args } = parseArgs({
  options: {
    version: { type: 'string' },
    out: { type: 'string' },
    fault: { type: 'string' },
    'test-hooks': { type: 'boolean' },
  },
});
// UPG-02: a deliberately broken test release (src/built-fault.ts); none by default.
const fault = args.fault;
const FAULTS = ['exit-at-start', 'never-ready', 'prepare-fails'];
if (fault !== undefined && !FAULTS.includes(fault))
  usage(`--fault must be one of ${FAULTS.join(', ')}: ${fault}`);
const packageVersion = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
).version;
const version = args.version ?? packageVersion;
if (!/^\d{1,6}\.\d{1,6}\.\d{1,6}(-[0-9A-Za-z.-]{1,40})?$/.test(version))
  usage(`--version must be a version such as 0.2.0 or 0.2.0-rc.1: ${version}`);
const testHooks = args['test-hooks'] === true;
const dist = resolve(args.out ?? join(root, 'dist'));
// A broken or hooked build never lands where the release and the tests take the real one from.
if ((fault !== undefined || testHooks) && dist === join(root, 'dist'))
  usage('--fault and --test-hooks need --out with another directory than dist/');
const work = join(dist, '.build');
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

async function main(): Promise<void> {
  // Only what the build writes is removed (--out may name a directory holding other things).
  for (const name of ['.build', 'oac-node', 'oac-node.gz', 'SHA256SUMS'])
    rmSync(join(dist, name), { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const bundle = join(work, 'bundle.cjs');
  await bundleCli(bundle);
  const wrapped = join(work, BUNDLE_ASSET);
  writeFileSync(wrapped, wrapBundle(readFileSync(bundle, 'utf8')));
  const main = join(work, 'main.cjs');
  await bundleSmall(join(root, 'src/cli/executable-main.ts'), main);
  const exe = join(dist, 'oac-node');
  const cache = await warmCodeCache(wrapped, exe);
  const blob = makeBlob(main, { [BUNDLE_ASSET]: wrapped, [CODE_CACHE_ASSET]: cache });
  injectBlob(blob, exe);
  const gz = join(dist, 'oac-node.gz');
  // Level 9, no name or time in the header: the same executable always gives the same bytes.
  writeFileSync(gz, gzipSync(readFileSync(exe), { level: 9 }));
  writeFileSync(join(dist, 'SHA256SUMS'), `${sha256(exe)}  oac-node\n${sha256(gz)}  oac-node.gz\n`);
  rmSync(work, { recursive: true, force: true });
  const broken =
    (fault === undefined ? '' : `, broken on purpose: ${fault}`) +
    (testHooks ? ', with the test hooks' : '');
  process.stdout.write(`built ${exe} and ${gz} (version ${version}${broken})\n`);
}

/** `oac-node --help` as yargs prints it from the sources, under env -i: the executable prints
 *  this text without loading yargs (src/cli/entry.ts; test/host/executable.test.ts compares). */
function topLevelHelp(): string {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'src/cli/entry.ts'), '--help'],
    {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    },
  );
  if (r.status !== 0 || !r.stdout.includes('Usage:'))
    throw new Error(`rendering --help failed: ${r.stderr.trim()}`);
  return r.stdout;
}

/** The help text with the stamped version (the sources print the package's). */
function stamped(help: string): string {
  const from = `oac-node ${packageVersion}:`;
  if (!help.includes(from)) throw new Error(`--help does not name the version (${from})`);
  return help.replace(from, `oac-node ${version}:`);
}

/** The commit the sources are at, for `oac-node version` (null outside a git checkout, and
 *  marked when the tree has changes the commit does not hold). */
function sourceCommit(): string | null {
  const git = (args: string[]) =>
    spawnSync('git', args, { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  const head = git(['rev-parse', '--short=12', 'HEAD']);
  if (head.status !== 0) return null;
  const dirty = git(['status', '--porcelain', '--untracked-files=no']).stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? '+changes' : ''}`;
}

/** What every bundle of the build shares: CommonJS for Node 20, minified. No real dynamic
 *  import(): a script compiled by vm.Script without a loader for one (the executable's bundle:
 *  src/cli/executable-main.ts), or with Node's code cache, cannot run it (pitfall 2); esbuild
 *  turns each into a call of the bundled module. */
const COMMON = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  supported: { 'dynamic-import': false },
} as const;

/** The defines every bundle holding src/version.ts needs. */
let defines: Record<string, string> | undefined;
function builtDefines(): Record<string, string> {
  return (defines ??= {
    OAC_BUILT_HELP: JSON.stringify(stamped(topLevelHelp())),
    OAC_BUILT_VERSION: JSON.stringify(version),
    OAC_BUILT_COMMIT: JSON.stringify(sourceCommit()),
    OAC_BUILT_FAULT: fault === undefined ? 'undefined' : JSON.stringify(fault),
    OAC_BUILT_TEST_HOOKS: JSON.stringify(testHooks),
  });
}

/** A small script of its own: the executable's main, or the code cache's warm run. */
async function bundleSmall(entry: string, outfile: string): Promise<void> {
  await build({ ...COMMON, entryPoints: [entry], outfile, define: builtDefines() });
}

async function bundleCli(outfile: string): Promise<void> {
  await build({
    ...COMMON,
    entryPoints: [join(root, 'src/cli/entry.ts')],
    outfile,
    inject: [join(root, 'scripts/import-meta-url.ts')],
    // undici without what the executable never uses (scripts/undici-slim.cjs, issue #13);
    // string-width loaded when help is laid out (scripts/string-width-lazy.cjs, issue #41).
    alias: {
      undici: join(root, 'scripts/undici-slim.cjs'),
      'string-width': join(root, 'scripts/string-width-lazy.cjs'),
    },
    define: { 'import.meta.url': 'importMetaUrl', ...builtDefines() },
    plugins: [withoutZodLocales, withoutHttp2],
  });
}

/** V8's code cache for the wrapped bundle after one run of `install --help`
 *  (scripts/code-cache-warm.ts): it then holds the parser and the command definitions every
 *  command compiles as it starts (issue #41; bench/README.md). The run only prints help (the
 *  command's handler never runs for it): no standard input, no HOME, its own directory, and a
 *  time limit. */
async function warmCodeCache(wrapped: string, exe: string): Promise<string> {
  const warm = join(work, 'code-cache-warm.cjs');
  const cache = join(work, CODE_CACHE_ASSET);
  await bundleSmall(join(root, 'scripts/code-cache-warm.ts'), warm);
  const r = spawnSync(process.execPath, [warm, wrapped, cache, exe, 'install', '--help'], {
    cwd: work,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  if (r.status !== 0 || !r.stdout.startsWith('oac-node install'))
    throw new Error(`the code cache's run failed: ${r.error?.message ?? r.stderr.trim()}`);
  return cache;
}

/** zod's `locales` namespace: every language's messages, built at each start of every process
 *  (about 8 ms; issue #41). Nothing here reads it: zod's classic API sets English itself, from
 *  its own module. */
const withoutZodLocales: Plugin = {
  name: 'without-zod-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[/\\]zod[/\\]v4[/\\]classic[/\\]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'oac-empty' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'oac-empty' }, () => ({ contents: 'export {};' }));
  },
};

/** undici's HTTP/2 client, and `node:http2` with it: never used (scripts/undici-no-h2.cjs). */
const withoutHttp2: Plugin = {
  name: 'without-http2',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      /[/\\]undici[/\\]lib[/\\]dispatcher[/\\]client\.js$/.test(args.importer)
        ? { path: join(root, 'scripts/undici-no-h2.cjs') }
        : undefined,
    );
  },
};

/** The blob: the small main, and the bundle and its code cache as assets. Node's own
 *  `useCodeCache` is off: the main is small, and the bundle's cache is ours (warmCodeCache). */
function makeBlob(main: string, assets: Record<string, string>): string {
  const blob = join(work, 'sea-prep.blob');
  const config = join(work, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, assets }),
  );
  // The blob must come from the very Node binary used as the base (pitfall 4).
  // Its "Wrote single executable preparation blob" goes to stderr: shown only on failure.
  const result = spawnSync(process.execPath, ['--experimental-sea-config', config], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`making the SEA blob failed: ${result.stderr.trim()}`);
  return blob;
}

function injectBlob(blob: string, exe: string): void {
  copyFileSync(process.execPath, exe);
  chmodSync(exe, 0o755);
  // Strip before injecting, never after (pitfall 4): 96 MiB → 84 MiB.
  execFileSync('strip', ['--strip-all', exe], { stdio: 'inherit' });
  const postject = join(root, 'node_modules/postject/dist/cli.js');
  // postject warns once per note section of the stripped base ("Can't find string offset for
  // section name '.note…'"): harmless (the recipe's figures were made the same way), so only
  // other lines are shown.
  const args = [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const noise = /^warning: Can't find string offset for section name '\.note[^']*'$/;
  const other = result.stderr.split('\n').filter((line) => line !== '' && !noise.test(line));
  if (other.length > 0) process.stderr.write(`${other.join('\n')}\n`);
  if (result.status !== 0) throw new Error(`postject failed with status ${String(result.status)}`);
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

main().catch((error: unknown) => {
  process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
