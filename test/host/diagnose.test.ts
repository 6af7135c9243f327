// SEC-13 OPS-07 (issue #40): `oac-node diagnose` on a scratch root (the built executable, as
// root, --root): a bundle 0600 whose MANIFEST.json names every file with its size and SHA-256 and
// what could not be collected; the node's credential and a proxy password the host holds are in
// no file, in no encoding (the proxy URL is shown by its host only); a secret where no collector
// masks it (the credential, base64-encoded, in the last run's events) stops the bundle, naming
// the file and the kind of secret, and nothing is written; the host is the same before and after.
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
import { requireExecutable } from '../helpers/executable.ts';
import { ENV_KEY, installRootHalf, names, programFor } from '../helpers/root-half.ts';
import { makeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

const CREDENTIAL = 'Zk3x-Q9_pL0mN2bV7cX1zA5sD8fG4hJ6kL3qW0eR9tY';
const PASSWORD = 's3cret-Proxy-pw';
const SECRETS = [
  { kind: 'credential', value: CREDENTIAL },
  { kind: 'password', value: PASSWORD },
];

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
    JSON.stringify({
      format: 1,
      node_id: '5815ecf4-2a8e-4c1b-9d7e-0f1a2b3c4d5e',
      credential: CREDENTIAL,
      core_url: 'http://127.0.0.1:9',
      installation_id: 'inst-1',
      name: 'node-1',
      provider: 'docker',
      managed: true,
      created_at: '2026-12-03T00:00:00Z',
    }),
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
  rmSync(root, { recursive: true, force: true });
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
  const before = treeOf(root);
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
  assert.deepEqual(treeOf(root), before, 'the host is unchanged');
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
    const before = treeOf(root);
    const file = join(out, 'refused.tar.gz');
    const r = diagnose(file);
    assert.equal(r.status, 1, r.stdout);
    assert.equal(
      r.stderr.split('\n')[0],
      "oac-node: The support bundle is not written: unit.service holds the node's credential (raw)",
    );
    assert.equal(existsSync(file), false, 'nothing written');
    assert.ok(!r.stderr.includes(CREDENTIAL), 'the value is never echoed');
    assert.deepEqual(treeOf(root), before, 'the host unchanged');
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
