// SEC-07: environment variables that would weaken the executable are ignored. A Core stand-in
// on loopback serves HTTPS with a self-signed certificate this host does not trust; each row
// sets variables that, honoured, would make the installer trust it (or weaken or dump its TLS)
// and send the token. The control shows the same variable does work on plain Node. Each row:
// exit 1, one line naming the untrusted certificate, no request reached the server, no token
// printed, no file written where a variable pointed, the scratch host unchanged.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { requireExecutable } from '../helpers/executable.ts';
import { makeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

const TOKEN = 'tok_SEC07abcdefghijklmnopqrstuvwxyz';
let dir: string;
let root: string;
let server: Server;
let coreUrl: string;
const requests: string[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oac-env-'));
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1'],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  // SSL_CERT_DIR is read by hash name: the certificate under `openssl rehash`'s link.
  mkdirSync(join(dir, 'certs'));
  copyFileSync(join(dir, 'cert.pem'), join(dir, 'certs', 'server.pem'));
  execFileSync('openssl', ['rehash', join(dir, 'certs')], { stdio: 'ignore' });
  // What OPENSSL_CONF could do: every protocol and cipher, security level 0.
  writeFileSync(
    join(dir, 'weak.cnf'),
    'openssl_conf = x\n[x]\nssl_conf = s\n[s]\nsystem_default = d\n[d]\nCipherString = DEFAULT@SECLEVEL=0\nMinProtocol = TLSv1\n',
  );
  server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.end('{}');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  coreUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  root = makeScratchRoot();
});
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

// [name, variables, whether plain Node honours them (then a control row proves it)]
const ROWS: [string, () => Record<string, string>, boolean][] = [
  ['NODE_TLS_REJECT_UNAUTHORIZED=0', () => ({ NODE_TLS_REJECT_UNAUTHORIZED: '0' }), true],
  [
    'NODE_EXTRA_CA_CERTS naming the server',
    () => ({ NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') }),
    true,
  ],
  [
    'NODE_OPTIONS=--use-openssl-ca with SSL_CERT_FILE naming the server',
    () => ({ NODE_OPTIONS: '--use-openssl-ca', SSL_CERT_FILE: join(dir, 'cert.pem') }),
    true,
  ],
  [
    'SSL_CERT_DIR (hashed) beside --use-openssl-ca',
    () => ({ NODE_OPTIONS: '--use-openssl-ca', SSL_CERT_DIR: join(dir, 'certs') }),
    true,
  ],
  // OpenSSL's configuration cannot make a self-signed certificate trusted; these rows show the
  // installer neither breaks nor loosens on one (the variable is dropped all the same).
  ['OPENSSL_CONF at security level 0', () => ({ OPENSSL_CONF: join(dir, 'weak.cnf') }), false],
  ['OPENSSL_CONF naming no file', () => ({ OPENSSL_CONF: join(dir, 'missing.cnf') }), false],
  [
    'NODE_REDIRECT_WARNINGS with a warning to write',
    () => ({ NODE_REDIRECT_WARNINGS: join(dir, 'warnings'), NODE_TLS_REJECT_UNAUTHORIZED: '0' }),
    false,
  ],
  [
    'NODE_DEBUG dumping http, tls and undici',
    () => ({ NODE_DEBUG: 'http,tls,net,fetch,undici' }),
    false,
  ],
  [
    'NODE_V8_COVERAGE writing coverage files',
    () => ({ NODE_V8_COVERAGE: join(dir, 'coverage') }),
    false,
  ],
];

for (const [name, vars] of ROWS) {
  test(`SEC-07 ${name}: ignored; the untrusted certificate stops the installer before the token leaves`, async () => {
    const before = treeOf(root);
    const seen = requests.length;
    // Asynchronously: the server answers from this process's event loop.
    const r = await runAsync(
      requireExecutable(),
      ['install', '--core-url', coreUrl, '--installation-id', 'inst-1', '--root', root],
      { input: `${TOKEN}\n`, env: { PATH: '/usr/bin:/bin', ...vars() } },
    );
    const out = r.stdout + r.stderr;
    assert.equal(r.status, 1, out);
    assert.match(
      r.stderr,
      /^oac-node: Core's certificate at .* is not trusted by this host: TLS: DEPTH_ZERO_SELF_SIGNED_CERT/,
    );
    assert.equal(r.stderr.trim().split('\n')[0]?.startsWith('oac-node:'), true, out);
    assert.doesNotMatch(out, /\n\s+at |internal error|Warning/);
    assert.ok(!out.includes(TOKEN), 'the token is never printed');
    assert.equal(requests.length, seen, 'no request reached the server');
    assert.ok(!existsSync(join(dir, 'warnings')), 'no warning file written');
    assert.ok(coverageFiles().length <= 1, 'only the first process (plain Node) wrote coverage');
    for (const file of coverageFiles()) {
      assert.ok(!readFileSync(join(dir, 'coverage', file), 'utf8').includes(TOKEN), file);
    }
    assert.deepEqual(
      treeOf(root, /^run\/oac-node/),
      Object.fromEntries(Object.entries(before).filter(([p]) => !p.startsWith('run/oac-node'))),
    );
  });
}

for (const [name, vars, honoured] of ROWS.filter((row) => row[2])) {
  test(`SEC-07 control: plain Node honours ${name}, so its row above is real`, async () => {
    const seen = requests.length;
    const r = await runAsync(
      process.execPath,
      ['-e', `fetch(${JSON.stringify(`${coreUrl}/control`)}).then((r) => console.log(r.status))`],
      { input: '', env: { PATH: '/usr/bin:/bin', ...vars() } },
    );
    assert.equal(honoured, true);
    assert.equal(r.stdout.trim(), '200', r.stderr);
    assert.equal(requests.length, seen + 1);
  });
}

test('SEC-07 a hand-set restart mark does not let the variables through: refused in one line', async () => {
  const seen = requests.length;
  const r = await runAsync(
    requireExecutable(),
    ['install', '--core-url', coreUrl, '--installation-id', 'inst-1', '--root', root],
    {
      input: `${TOKEN}\n`,
      env: { PATH: '/usr/bin:/bin', OAC_NODE_RESTARTED: '1', NODE_TLS_REJECT_UNAUTHORIZED: '0' },
    },
  );
  assert.equal(r.status, 70, r.stderr);
  assert.equal(
    r.stderr,
    'oac-node: could not clear NODE_TLS_REJECT_UNAUTHORIZED from the environment; unset them\n',
  );
  assert.equal(requests.length, seen, 'no request reached the server');
});

test('SEC-07 issue #41 help, the version and a bad command line answer before the restart; a command restarts once', async () => {
  // The hand-set mark makes any restart refuse (exit 70, above): what answers without it did
  // not restart.
  const env = {
    PATH: '/usr/bin:/bin',
    OAC_NODE_RESTARTED: '1',
    NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt',
  };
  const exe = requireExecutable();
  const answered: Array<[string[], number, RegExp]> = [
    [['--help'], 0, /^oac-node /],
    [['--version'], 0, /^\d+\.\d+\.\d+/],
    [['install', '--help'], 0, /^oac-node install/],
    [['help', 'status'], 0, /^oac-node status/],
    [['install', '--bogus'], 64, /^$/],
    [['instal'], 64, /^$/],
  ];
  for (const [args, status, stdout] of answered) {
    const r = await runAsync(exe, args, { input: '', env });
    assert.equal(r.status, status, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, stdout, args.join(' '));
    assert.doesNotMatch(r.stderr, /could not clear/, args.join(' '));
  }
  const command = await runAsync(exe, ['status', '--installation-id', 'nope'], { input: '', env });
  assert.equal(command.status, 70, 'a command that passed the parser restarts');
  const clean = { PATH: env.PATH, NODE_EXTRA_CA_CERTS: env.NODE_EXTRA_CA_CERTS };
  const restarted = await runAsync(exe, ['status', '--installation-id', 'nope'], {
    input: '',
    env: clean,
  });
  assert.match(restarted.stderr, /No node of installation nope is recorded/, restarted.stderr);
});

// Node itself starts V8 coverage in the first process, before any of our code, and writes it
// at exit: a residual (docs/security.md). That process never reads the token (its stdin passes
// to the restarted one untouched); the restarted one writes nothing.
function coverageFiles(): string[] {
  const coverage = join(dir, 'coverage');
  return existsSync(coverage) ? readdirSync(coverage) : [];
}

function runAsync(
  command: string,
  args: string[],
  options: { input: string; env: Record<string, string> },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { env: options.env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input);
  return new Promise((resolve) => {
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
