// SEC-13 OPS-07 (issue #40): `oac-node diagnose` on a scratch root (the built executable, as
// root, --root): a bundle 0600 whose MANIFEST.json names every file with its size and SHA-256 and
// what could not be collected; the node's credential and a proxy password the host holds are in
// no file, in no encoding (the proxy URL is shown by its host only); a secret where no collector
// masks it (the credential, base64-encoded, in the last run's events) stops the bundle, naming
// the file and the kind of secret, and nothing is written; the host is the same before and after
// (the installer's lock aside: the dry run takes it, as any run does). host.json holds the
// preflight's facts (systemd's and Docker's versions asked on the real root only) and the free
// space where the node writes; plan.json the dry run a rerun would make, here with Core
// unreachable, as that dry run prints it. The real-root case asks Docker: start it first with
// `bash scripts/dockerd.sh start`.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { renderEnvFile } from '../../records/env-file.ts';
import { findSecrets } from '../../support/secret-scan.ts';
import { requireDocker } from '../helpers/docker.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { ENV_KEY, installRootHalf, names, programFor } from '../helpers/root-half.ts';
import { makeScratchRoot, removeScratchRoot, treeOf } from '../helpers/scratch-root.ts';
import { registeredIdentity } from '../helpers/identity-file.ts';

const CREDENTIAL = 'Zk3x-Q9_pL0mN2bV7cX1zA5sD8fG4hJ6kL3qW0eR9tY';
const PASSWORD = 's3cret-Proxy-pw';
const SECRETS = [
  { kind: 'credential', value: CREDENTIAL },
  { kind: 'password', value: PASSWORD },
];
const NODE_ID = '5815ecf4-2a8e-4c1b-9d7e-0f1a2b3c4d5e';
/** The run's own lock file (made by any run that takes the installer lock, the dry run of
 *  plan.json too): not a change (test/host/operator-mistakes.test.ts). */
const LOCK = /^run\/oac-node(\/installer\.lock)?$/;

let exe: string;
let root: string;
let out: string;
before(async () => {
  exe = requireExecutable();
  root = makeScratchRoot();
  out = mkdtempSync(join(tmpdir(), 'oac-diagnose-'));
  await installRootHalf(root, programFor(root));
  // The node's identity (its own file, 0600 oac-node's) and proxy settings with a password.
  const state = join(root, names.stateDir);
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const identity = join(root, names.identityFile);
  writeFileSync(
    identity,
    // Registered: a rerun needs no token, so plan.json's dry run asks Core.
    JSON.stringify(
      registeredIdentity({
        nodeId: NODE_ID,
        installationId: 'inst-1',
        credential: CREDENTIAL,
        coreUrl: 'http://127.0.0.1:9',
      }),
    ),
    { mode: 0o600 },
  );
  for (const path of [
    join(root, 'var/lib/oac-node/.oac'),
    join(root, 'var/lib/oac-node/.oac/nodes'),
    state,
    identity,
  ])
    chownSync(path, 65532, 65532);
  const env = renderEnvFile(
    { https_proxy: `http://alice:${PASSWORD}@proxy.example:3128` },
    ENV_KEY,
  );
  writeFileSync(join(root, names.envFile), env ?? '', { mode: 0o600 });
});
after(() => {
  removeScratchRoot(root);
  rmSync(out, { recursive: true, force: true });
});

const diagnose = (file: string, ...more: string[]) =>
  spawnSync(exe, ['diagnose', '--root', root, '--out', file, ...more], {
    encoding: 'utf8',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });

function unpack(file: string): Map<string, Buffer> {
  const dir = mkdtempSync(join(out, 'unpacked-'));
  execFileSync('tar', ['-xzf', file, '-C', dir]);
  const names = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).trim().split('\n');
  return new Map(names.map((n) => [n, readFileSync(join(dir, n))]));
}

test('SEC-13 OPS-07 the bundle: 0600, every file in the manifest with its size and SHA-256, no secret of the host in any encoding, the host unchanged', () => {
  const before = treeOf(root, LOCK);
  const file = join(out, 'ticket.tar.gz');
  const r = diagnose(file, '--json');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const files = unpack(file);
  const manifest = JSON.parse(r.stdout) as {
    files: Array<{ name: string; size: number; sha256: string; masked: string[] }>;
    missing: Array<{ name: string; reason: string }>;
    scanned_for: string[];
  };
  assert.deepEqual(JSON.parse(files.get('MANIFEST.json')?.toString() ?? '{}'), manifest);
  assert.deepEqual(
    [...files.keys()].sort(),
    [...manifest.files.map((f) => f.name), 'MANIFEST.json'].sort(),
  );
  for (const f of manifest.files) {
    const data = files.get(f.name) ?? Buffer.alloc(0);
    assert.equal(data.length, f.size, f.name);
    assert.equal(
      execFileSync('sha256sum', { input: data, encoding: 'utf8' }).split(' ')[0],
      f.sha256,
    );
  }
  for (const name of ['version.json', 'status.json', 'record.json', 'unit.service', 'proxy.json'])
    assert.ok(files.has(name), name);
  // Core (127.0.0.1:9 here) does not answer: said, with how long it took and why.
  const core = JSON.parse(files.get('core.json')?.toString() ?? '{}') as Record<string, unknown>;
  assert.equal(core.answered, false);
  assert.equal(typeof core.error, 'string');
  assert.ok(
    manifest.missing.some((m) => m.name === 'service-log.txt'),
    'said, not silently left out',
  );
  assert.deepEqual(manifest.scanned_for.sort(), [
    "the node's credential",
    'the password in https_proxy',
  ]);
  assert.deepEqual(JSON.parse(files.get('proxy.json')?.toString() ?? '{}'), {
    https_proxy: 'http://proxy.example:3128',
  });
  assert.deepEqual(manifest.files.find((f) => f.name === 'proxy.json')?.masked, ['https_proxy']);
  const all = [...files].map(([name, data]) => ({ name, data }));
  assert.deepEqual(findSecrets(all, SECRETS), [], 'no secret in any file, in any encoding');
  assert.deepEqual(treeOf(root, LOCK), before, 'the host is unchanged');
});

test('SEC-13 a log carrying the credential (base64) or the proxy password (URL-encoded): masked there, named in the manifest, in no file', () => {
  const dir = join(root, 'var/log/oac-node');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const leaked = Buffer.from(`Authorization: Basic ${CREDENTIAL}`).toString('base64');
  const events = [
    { type: 'note', step: 's', message: leaked },
    { type: 'note', step: 's', message: `via http://alice:${encodeURIComponent(PASSWORD)}@proxy` },
  ];
  writeFileSync(join(root, names.lastRunLog), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  try {
    const file = join(out, 'masked.tar.gz');
    const r = diagnose(file, '--json');
    assert.equal(r.status, 0, r.stderr);
    const files = unpack(file);
    const manifest = JSON.parse(r.stdout) as { files: Array<{ name: string; masked: string[] }> };
    assert.deepEqual(manifest.files.find((f) => f.name === 'last-run.jsonl')?.masked.sort(), [
      "the node's credential",
      'the password in https_proxy',
    ]);
    assert.match(
      files.get('last-run.jsonl')?.toString() ?? '',
      /\[masked: the node's credential\]/,
    );
    const all = [...files].map(([name, data]) => ({ name, data }));
    assert.deepEqual(findSecrets(all, SECRETS), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SEC-13 a secret where no collector masks it (the credential in the unit file), or split by a line break in a log: no bundle, the file and the kind named', () => {
  const unit = join(root, names.unitPath);
  const original = readFileSync(unit);
  try {
    writeFileSync(unit, `${original.toString()}Environment=LEAK=${CREDENTIAL}\n`);
    const before = treeOf(root, LOCK);
    const file = join(out, 'refused.tar.gz');
    const r = diagnose(file);
    assert.equal(r.status, 1, r.stdout);
    assert.equal(
      r.stderr.split('\n')[0],
      "oac-node: The support bundle is not written: unit.service holds the node's credential (raw)",
    );
    assert.equal(existsSync(file), false, 'nothing written');
    assert.ok(!r.stderr.includes(CREDENTIAL), 'the value is never echoed');
    assert.deepEqual(treeOf(root, LOCK), before, 'the host unchanged');
  } finally {
    writeFileSync(unit, original);
  }
  const dir = join(root, 'var/log/oac-node');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    const split = `${CREDENTIAL.slice(0, 12)}\n${CREDENTIAL.slice(12)}`;
    writeFileSync(
      join(root, names.lastRunLog),
      `{"type":"note","step":"s","message":"x"}\n${split}\n`,
    );
    const r = diagnose(join(out, 'split.tar.gz'));
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, /last-run\.jsonl holds the node's credential \(raw\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Disk {
  what: string;
  path: string | null;
  measured?: string;
  free_bytes?: number;
  total_bytes?: number;
  unavailable?: string;
}
interface HostFacts {
  cgroup: number | { unavailable: string };
  cpus: number;
  memory_bytes: number;
  systemd: { version?: number; line?: string; unavailable?: string };
  docker: { version?: string | null; root_dir?: string; unavailable?: string };
  disk: Disk[];
}
interface Manifest {
  files: Array<{ name: string; masked: string[] }>;
  missing: Array<{ name: string; reason: string }>;
}

/** A bundle made with `args` (--root or --installation-id), unpacked, and its manifest. */
function bundle(file: string, args: string[]) {
  const r = spawnSync(exe, ['diagnose', ...args, '--out', file, '--json'], {
    encoding: 'utf8',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  assert.equal(r.status, 0, r.stderr);
  const files = unpack(file);
  const json = <T>(name: string) => JSON.parse(files.get(name)?.toString() ?? 'null') as T;
  return { files, json, manifest: JSON.parse(r.stdout) as Manifest };
}

/** A directory measured: the path measured, and its file system's free and total bytes. */
function assertMeasured(found: Disk | undefined, measured: string | null | undefined) {
  const d = found ?? { what: '?', path: null };
  assert.equal(d.measured, measured, JSON.stringify(d));
  assert.ok(Number.isSafeInteger(d.free_bytes) && (d.free_bytes ?? 0) > 0, JSON.stringify(d));
  assert.ok(Number.isSafeInteger(d.total_bytes), JSON.stringify(d));
  assert.ok((d.total_bytes ?? 0) >= (d.free_bytes ?? 0), JSON.stringify(d));
}

test('OPS-07 host.json under --root: the free space of each directory the node writes to (one not made yet at its nearest parent, named), systemd and Docker not asked of this machine', () => {
  assert.equal(existsSync(join(root, 'var/log/oac-node')), false);
  const { json } = bundle(join(out, 'facts.tar.gz'), ['--root', root]);
  const host = json<HostFacts>('host.json');
  assert.ok(Number.isSafeInteger(host.cpus) && host.cpus > 0);
  assert.ok(Number.isSafeInteger(host.memory_bytes) && host.memory_bytes > 0);
  // The scratch tree has no /sys: said, not guessed.
  assert.match((host.cgroup as { unavailable: string }).unavailable, /\/sys\/fs\/cgroup/);
  assert.match(host.systemd.unavailable ?? '', /not asked under --root/);
  assert.match(host.docker.unavailable ?? '', /Docker did not answer at \/var\/run\/docker\.sock/);
  const at = (path: string) => host.disk.find((d) => d.path === path);
  for (const path of ['/var/lib/oac-node', names.stateDir, '/etc/oac-node', names.programDir])
    assertMeasured(at(path), path);
  assertMeasured(at('/var/log/oac-node'), '/var/log');
  // The record says docker: no microsandbox store; Docker's data root not known, and why.
  assert.equal(host.disk.length, 6, JSON.stringify(host.disk));
  const docker = host.disk.find((d) => d.what === "Docker's images");
  assert.equal(docker?.path, null);
  assert.match(docker.unavailable ?? '', /Docker did not answer/);
});

test('OPS-07 host.json on the real root: systemd version a number, Docker version as its Engine API says, free space of its data root; no record, so no plan.json (the manifest says why)', async () => {
  const dockerVersion = await requireDocker();
  const id = `diag-probe-${process.pid}`;
  assert.equal(existsSync(`/etc/oac-node/${id}.json`), false, 'an installation nobody made');
  const { json, manifest } = bundle(join(out, 'real.tar.gz'), ['--installation-id', id]);
  const host = json<HostFacts>('host.json');
  assert.ok(Number.isInteger(host.systemd.version) && (host.systemd.version ?? 0) > 0);
  assert.match(host.systemd.line ?? '', /^systemd \d+/);
  assert.equal(host.docker.version, dockerVersion);
  assert.match(host.docker.root_dir ?? '', /^\//);
  const docker = host.disk.find((d) => d.what === "Docker's images");
  assert.equal(docker?.path, host.docker.root_dir);
  assertMeasured(docker, host.docker.root_dir);
  assert.match(manifest.missing.find((m) => m.name === 'plan.json')?.reason ?? '', /no record/);
});

test('OPS-07 plan.json: the document install --dry-run --json prints for the recorded installation (stdin closed, no token, the saved proxy variables), here Core unreachable: its error event; the host unchanged', () => {
  const before = treeOf(root, LOCK);
  const { files, json, manifest } = bundle(join(out, 'plan.tar.gz'), ['--root', root]);
  assert.deepEqual(treeOf(root, LOCK), before, 'a dry run changes nothing');
  const entry = manifest.files.find((f) => f.name === 'plan.json');
  assert.deepEqual(entry?.masked, [], 'the dry run masks the secrets itself');
  const plan = json<{
    command: string;
    proxy_variables: string[];
    exit_status: number;
    events: Array<Record<string, unknown>>;
  }>('plan.json');
  const args = ['install', '--core-url', 'http://127.0.0.1:9', '--installation-id', 'inst-1'];
  args.push('--root', root, '--dry-run', '--json');
  assert.equal(plan.command, `oac-node ${args.join(' ')} < /dev/null`);
  assert.deepEqual(plan.proxy_variables, ['https_proxy']);
  assert.equal(plan.exit_status, 1);
  assert.deepEqual(plan.events[0], {
    type: 'start',
    format: 1,
    command: 'install',
    version: plan.events[0]?.version,
    dry_run: true,
  });
  const last = plan.events.at(-1);
  assert.equal(last?.type, 'error');
  assert.equal(typeof last.code, 'string');
  // The same run by hand: the same events.
  const env = renderedProxy();
  const direct = spawnSync(exe, args, { encoding: 'utf8', input: '', env });
  assert.equal(direct.status, plan.exit_status, direct.stderr);
  const lines = direct.stdout.trim().split('\n');
  const shape = (e: Record<string, unknown>) => [e.type, e.code ?? null];
  assert.deepEqual(
    plan.events.map(shape),
    lines.map((l) => shape(JSON.parse(l) as Record<string, unknown>)),
  );
  assert.deepEqual(
    findSecrets([{ name: 'plan.json', data: files.get('plan.json') ?? Buffer.alloc(0) }], SECRETS),
    [],
  );
});

/** The environment the rerun gets: PATH and the saved proxy variable (written in before()). */
function renderedProxy(): Record<string, string> {
  return {
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    https_proxy: `http://alice:${PASSWORD}@proxy.example:3128`,
  };
}
