// The single executable (issue #2 item 2): self-contained, runs with no Node.js on the host.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { requireExecutable, requireTestHooksExecutable, repoRoot } from '../helpers/executable.ts';
import { VERSION } from '../../src/version.ts';
import { assertJsonEvents } from '../helpers/json-contract.ts';

let exe: string;
let scratch: string;
before(() => {
  exe = requireExecutable();
  scratch = mkdtempSync(join(tmpdir(), 'oac-exe-'));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs with an empty environment (no PATH, so no `node` to find) from a scratch directory. */
function runBare(args: string[], cwd = scratch) {
  return spawnSync('env', ['-i', exe, ...args], { cwd, encoding: 'utf8' });
}

test('issue #2 --version works under env -i from any directory', () => {
  for (const cwd of [scratch, '/', repoRoot]) {
    const r = runBare(['--version'], cwd);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), VERSION);
    assert.equal(r.stderr, '', 'no experimental-SEA warning or other noise');
  }
});

test('issue #13 --help, printed without the parser, is word for word what the parser prints', () => {
  // The executable prints a text rendered at build time; a help that forgets an option or a
  // command, or a stale build, differs from the parser's answer from the sources.
  const built = runBare(['--help']);
  const parsed = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', '--help'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  assert.equal(parsed.status, 0, parsed.stderr);
  assert.equal(built.status, 0, built.stderr);
  assert.equal(built.stdout, parsed.stdout);
  // With another word beside it, --help goes through the executable's own parser: the same.
  assert.equal(runBare(['--color', '--help']).stdout, parsed.stdout);
});

test('issue #25 -h and -V are --help and --version, alone and after a command', () => {
  for (const [short, long] of [
    ['-h', '--help'],
    ['-V', '--version'],
  ] as const) {
    const [a, b] = [runBare([short]), runBare([long])];
    assert.equal(a.status, 0, `${short}: ${a.stderr}`);
    assert.equal(a.stdout, b.stdout, short);
  }
  const [a, b] = [runBare(['install', '-h']), runBare(['install', '--help'])];
  assert.equal(a.status, 0, a.stderr);
  assert.equal(a.stdout, b.stdout);
  assert.match(a.stdout, /--core-url/);
});

test("issue #25 FLEET-02 --json: a failure before the command's own events is an error event too, and only once", () => {
  // Each answer also keeps the published contract (docs/schema/, issue #25 item 3).
  const events = (stdout: string) => {
    assertJsonEvents(stdout, 'the executable');
    return stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; code?: string; exit?: number });
  };
  const none = runBare(['status', '--json', '--installation-id', 'x', '--root', scratch]);
  assert.equal(none.status, 4, none.stderr);
  assert.deepEqual(
    events(none.stdout).map((e) => [e.type, e.code, e.exit]),
    [['error', 'not_installed', 4]],
  );
  const url = runBare([
    'install',
    '--json',
    '--core-url',
    'core.example:8443',
    '--installation-id',
    'x',
  ]);
  assert.equal(url.status, 64, url.stderr);
  assert.deepEqual(
    events(url.stdout).map((e) => [e.type, e.code, e.exit]),
    [['error', 'invalid_url', 64]],
  );
  const nobody = spawnSync(
    'setpriv',
    [
      ...['--reuid', '65534', '--regid', '65534', '--clear-groups', exe, 'install', '--json'],
      ...['--core-url', 'https://core.example', '--installation-id', 'inst-1'],
    ],
    // An environment of its own: one holding NODE_EXTRA_CA_CERTS (CI's has it) makes the
    // executable start itself again (SEC-07), and nobody may not reach a checkout under a
    // private directory to do so.
    { encoding: 'utf8', input: '', cwd: scratch, env: { PATH: '/usr/bin:/bin' } },
  );
  assert.deepEqual(
    events(nobody.stdout).map((e) => [e.type, e.code]),
    [['error', 'not_root']],
  );
  // Failing inside the run: its own error event, after its start, and no second one.
  const unreachable = spawnSync(
    exe,
    [
      'install',
      '--json',
      '--core-url',
      'http://127.0.0.1:9',
      '--installation-id',
      'x',
      '--root',
      scratch,
    ],
    {
      encoding: 'utf8',
      input: 'oac_enr_0123456789abcdef0123456789abcdef\n',
      cwd: scratch,
      env: { PATH: '/usr/bin:/bin' },
    },
  );
  assert.deepEqual(
    events(unreachable.stdout).map((e) => [e.type, e.code]),
    [
      ['start', undefined],
      ['error', 'core_unreachable'],
    ],
  );
});

test('issue #2 --help lists every command of docs/design.md', () => {
  const r = runBare(['--help']);
  assert.equal(r.status, 0, r.stderr);
  for (const command of ['install', 'uninstall', 'register', 'run', 'status', 'command']) {
    assert.match(r.stdout, new RegExp(`oac-node ${command} `), command);
  }
});

test('issue #12 OPS-05 help: no internal requirement IDs; install and uninstall show the operator their commands', () => {
  const commands = ['install', 'uninstall', 'register', 'run', 'status', 'command'];
  for (const args of [['--help'], ...commands.map((c) => [c, '--help'])]) {
    const r = runBare(args);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /\b[A-Z]{2,5}-\d{2}\b/, `${args.join(' ')}: no requirement ID`);
  }
  const install = runBare(['install', '--help']).stdout;
  assert.match(
    install,
    /Examples:\n {2}# What the line from Web runs.*\n {2}sudo oac-node install --core-url https:\/\/core\.example --installation-id ID < token-file\n/,
  );
  // OPS-05 (issue #25): the required options are marked, and every example is one whole line.
  assert.match(install, /--core-url .*\[required\]/);
  assert.match(install, /--installation-id .*\[required\]/);
  for (const c of [
    'install',
    'uninstall',
    'register',
    'status',
    'command',
    'bundle',
    'apply',
    'completion',
  ]) {
    const help = runBare([c, '--help']).stdout;
    // A command may go on over lines that end in a backslash, as a shell reads it.
    const section = help.split('Examples:\n')[1]?.split('\n\n')[0] ?? '';
    const examples = section.replace(/ \\\n\s+/g, ' ').split('\n');
    const described = examples.filter((l) => l.startsWith('  # '));
    const commandLines = examples.filter((l) => /^ {2}(sudo |source <\()?oac-node\b/.test(l));
    assert.ok(examples.length > 0, `${c}: examples`);
    assert.equal(described.length + commandLines.length, examples.filter(Boolean).length, help);
    assert.equal(described.length, commandLines.length, `${c}: a line of words per command`);
  }
  assert.match(install, /--dry-run/);
  // Issue #25: the older lines' --uninstall and --force still work, but are not install's options.
  assert.doesNotMatch(install, /--uninstall|--force/);
  const uninstall = runBare(['uninstall', '--help']).stdout;
  assert.match(
    uninstall,
    /Examples:\n {2}# After Remove node in Web.*\n {2}sudo oac-node uninstall --installation-id ID\n/,
  );
  assert.match(uninstall, /Core is gone for good/);
  assert.equal(uninstall.match(/sudo oac-node uninstall --installation-id ID/g)?.length, 2);
  // The top-level help names the guide for each task, and each page exists.
  const top = runBare(['--help']).stdout;
  const pages = [...top.matchAll(/ (docs\/[a-z-]+\.md)$/gm)].map((m) => m[1] ?? '');
  assert.deepEqual(pages.slice(0, 2), ['docs/operator-guide.md', 'docs/one-line-command.md']);
  for (const page of pages) assert.ok(existsSync(join(repoRoot, page)), page);
});

test('issue #5 issue #25 status for an installation with no record says so in one line and exits 4', () => {
  const r = runBare(['status', '--installation-id', 'x', '--root', scratch]);
  assert.equal(r.status, 4, r.stderr);
  assert.match(r.stderr, /^oac-node: No node of installation x is recorded on this host$/m);
  assert.equal(r.stdout, '');
});

test('issue #13 a global option before the command still runs that command (its code loads on demand)', () => {
  const r = runBare(['--no-color', 'status', '--installation-id', 'x', '--root', scratch]);
  assert.equal(r.status, 4, r.stderr);
  assert.match(r.stderr, /^oac-node: No node of installation x is recorded on this host$/m);
});

test('issue #2 FLEET-02 bad arguments get one line naming what to fix and exit 64 (EX_USAGE)', () => {
  const required = ['--core-url', 'https://core.example', '--installation-id', 'inst-1'];
  const r = runBare(['install', ...required, '--no-such-flag']);
  assert.equal(r.status, 64);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /Unknown option --no-such-flag/);
  // OPS-05: required options left out, each named, in one line.
  const missing = runBare(['install']);
  assert.equal(missing.status, 64);
  assert.equal(missing.stderr, 'oac-node: --core-url and --installation-id are required\n');
});

test("OPS-05 issue #39 `help COMMAND` is that command's --help; bare oac-node shows the usage on stderr and exits 64", () => {
  const help = runBare(['help', 'install']);
  assert.equal(help.status, 0, help.stderr);
  assert.equal(help.stdout, runBare(['install', '--help']).stdout);
  assert.equal(runBare(['help']).stdout, runBare(['--help']).stdout);
  const bare = runBare([]);
  assert.equal(bare.status, 64, 'a command line that names no command is a usage error');
  assert.equal(bare.stdout, '', 'nothing on stdout: a script reading it gets no help text');
  assert.equal(bare.stderr, runBare(['--help']).stdout, 'the usage, as --help prints it');
});

test('OPS-06 issue #39 the built executable says what it is: version, a release build and its commit; issue #41 V8 took its code cache', () => {
  const r = runBare(['version', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const d = JSON.parse(r.stdout) as {
    version: string;
    build: { kind: string; commit: unknown; codeCache: string };
  };
  assert.equal(d.version, VERSION);
  assert.equal(d.build.kind, 'release');
  assert.match(String(d.build.commit), /^[0-9a-f]{12}(\+changes)?$/, 'built from a git checkout');
  // The cache is the build's warm run of the bundle (scripts/build.ts): refused, every command
  // would start about a quarter slower and nothing else would say so.
  assert.equal(d.build.codeCache, 'accepted', 'V8 took the code cache the build made');
  assert.equal(runBare(['--version', '--json']).stdout, r.stdout);
  assert.match(
    runBare(['version']).stdout,
    /^oac-node \S+\n {2}build {4}release, commit \S+, code cache accepted\n/,
  );
});

test('OPS-06 issue #41 a code cache V8 refuses (other V8 flags) only costs time: the same help, exit 0', () => {
  const plain = runBare(['install', '--help']);
  assert.equal(plain.status, 0, plain.stderr);
  // --max-old-space-size changes V8's flags, so the build's cache no longer matches them; help is
  // answered before the clean-environment restart, so this process compiles without the cache.
  const refused = spawnSync(requireExecutable(), ['install', '--help'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_OPTIONS: '--max-old-space-size=300' },
  });
  assert.equal(refused.status, 0, refused.stderr);
  assert.equal(refused.stdout, plain.stdout);
  assert.equal(refused.stderr, '');
});

test('issue #2 the executable needs no Node.js: it runs in a chroot holding only itself and its libraries', () => {
  const root = join(scratch, 'chroot');
  const libs = execFileSync('ldd', [exe], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /(\/\S+) \(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
  assert.ok(libs.length > 0, 'ldd lists the shared libraries');
  for (const lib of libs) {
    mkdirSync(join(root, dirname(lib)), { recursive: true });
    copyFileSync(lib, join(root, lib));
  }
  copyFileSync(exe, join(root, 'oac-node'));
  const r = spawnSync('/usr/sbin/chroot', [root, '/oac-node', '--version'], {
    encoding: 'utf8',
    env: {},
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), VERSION);
});

test('issue #2 dist/oac-node.gz unpacks to the executable and SHA256SUMS lists both', () => {
  const dist = dirname(exe);
  const raw = readFileSync(exe);
  assert.deepEqual(gunzipSync(readFileSync(join(dist, 'oac-node.gz'))).equals(raw), true);
  const sums = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dist, encoding: 'utf8' });
  assert.match(sums, /^oac-node: OK$/m);
  assert.match(sums, /^oac-node.gz: OK$/m);
  const digest = createHash('sha256').update(raw).digest('hex');
  assert.match(
    readFileSync(join(dist, 'SHA256SUMS'), 'utf8'),
    new RegExp(`^${digest}  oac-node$`, 'm'),
  );
});

test('HOST-11 a --checkpoint-root that is not a plain absolute path is refused in one line, exit 2, before anything else', () => {
  for (const bad of ['relative/store', '/srv/../etc', '/srv/with space', '/srv/%i']) {
    const r = runBare([
      'install',
      ...['--core-url', 'http://127.0.0.1:9', '--installation-id', 'x'],
      ...['--checkpoint-root', bad, '--root', scratch],
    ]);
    assert.equal(r.status, 64, `${bad}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /--checkpoint-root must be an absolute path/);
  }
});

test("UPG-02 the built executable holds none of the test builds' deliberate faults, and names the package version", () => {
  // src/built-fault.ts: a normal build defines no fault, and esbuild drops the code.
  const bytes = readFileSync(exe);
  assert.equal(bytes.indexOf('this test build'), -1, 'a fault of a test build is in dist/oac-node');
  assert.equal(execFileSync(exe, ['--version'], { encoding: 'utf8' }).trim(), VERSION);
});

test('SEC-12 issue #37 the release executable reads no test hook: neither their names nor their code are in it; the test build has them', () => {
  // scripts/build.ts defines OAC_BUILT_TEST_HOOKS false for the release: esbuild folds every
  // test of it and drops what it guards (src/host/journal-points.ts). The test build keeps it,
  // which shows the search would find the names if they were there.
  const released = readFileSync(exe);
  const testBuild = readFileSync(requireTestHooksExecutable());
  // The names, and the code: the journal point's kill (esbuild's minified spelling of it).
  for (const text of [
    'OAC_NODE_TEST_',
    'process.kill(process.pid,"SIGKILL")',
    '/proc/self/fdinfo/',
  ]) {
    assert.equal(released.indexOf(text), -1, `${text} is in dist/oac-node`);
    assert.notEqual(testBuild.indexOf(text), -1, `${text}: in the test build`);
  }
  // A trace descriptor that names nothing inherited is no hook of the release: it runs as ever.
  const env = { PATH: '/usr/bin:/bin', OAC_NODE_TEST_JOURNAL_TRACE_FD: '3' };
  const ran = spawnSync(exe, ['status', '--root', scratch], { env, encoding: 'utf8' });
  assert.equal(ran.status, 4, ran.stderr);
});

test('SEC-12 issue #37 a test build refuses, in one line and before anything, a trace descriptor it did not inherit, also through the clean-environment restart', () => {
  const testBuild = requireTestHooksExecutable();
  const root = mkdtempSync(join(scratch, 'root-'));
  const run = (fd: string, extra: Record<string, string>, stdio3: 'ignore' | number) =>
    spawnSync(testBuild, ['uninstall', '--root', root, '--installation-id', 'inst-1'], {
      env: { PATH: '/usr/bin:/bin', OAC_NODE_TEST_JOURNAL_TRACE_FD: fd, ...extra },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe', stdio3],
    });
  const restart = { NODE_EXTRA_CA_CERTS: '/dev/null' }; // SEC-07: started again without it
  const trace = join(scratch, 'trace');
  const cases: Array<[string, ReturnType<typeof run>, RegExp]> = [
    ['no descriptor 3', run('3', {}, 'ignore'), /names no file or pipe this command inherited/],
    [
      'no 3 after the restart',
      run('3', restart, 'ignore'),
      /no file or pipe this command inherited/,
    ],
    ['a number of its own', run('18', {}, 'ignore'), /takes only 3, not "18"/],
  ];
  for (const [why, r, problem] of cases) {
    assert.equal(r.status, 64, `${why}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, `${why}: one line\n${r.stderr}`);
    assert.match(r.stderr, /^oac-node: OAC_NODE_TEST_JOURNAL_TRACE_FD /, why);
    assert.match(r.stderr, problem, why);
    assert.deepEqual(readdirSync(root), [], `${why}: nothing made under --root`);
  }
  // Handed over for writing, it is written to, through the restart too (nothing to uninstall
  // here, so no journal write: the command only has to get past the check).
  const fd = openSync(trace, 'a', 0o600);
  try {
    for (const extra of [{}, restart]) {
      const r = run('3', extra, fd);
      assert.doesNotMatch(r.stderr, /OAC_NODE_TEST_JOURNAL_TRACE_FD/, r.stderr);
    }
  } finally {
    closeSync(fd);
  }
});

test('OPS-02 issue #41 --help and --version written straight to descriptor 1: a reader that went away before the answer (EPIPE) is no failure, exit 0 and nothing on stderr', () => {
  for (const arg of ['--help', '--version']) {
    // The reader (`true`) is gone before the executable writes: its write meets EPIPE.
    const r = spawnSync(
      'bash',
      ['-c', 'set -o pipefail; { sleep 0.3; "$0" "$1"; } | true', requireExecutable(), arg],
      {
        // Not a socket on stdin: Debian's bash would take it for rshd and read ~/.bashrc.
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      },
    );
    assert.equal(r.status, 0, `${arg}: exit ${r.status}\n${r.stderr}`);
    assert.equal(r.stderr, '', arg);
  }
});

test('OPS-02 issue #39 standard output that cannot be written (/dev/full) is one line naming why, exit 1, no stack; --help, --version and a command alike', () => {
  for (const args of [['--help'], ['--version'], ['install', '--help']]) {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(requireExecutable(), args, {
        stdio: ['ignore', full, 'pipe'],
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      const shown = `${args.join(' ')}: exit ${r.status}\n${r.stderr}`;
      assert.equal(r.status, 1, shown);
      assert.equal(r.stderr, 'oac-node: Standard output cannot be written (ENOSPC)\n', shown);
    } finally {
      closeSync(full);
    }
  }
});
