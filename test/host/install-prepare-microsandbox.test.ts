// The microsandbox half of the install, done as oac-node (HOST-04, HOST-08, HOST-11, DL-01,
// DL-06, RERUN-01, RERUN-02): the real executable's `_prepare`, started like the installer
// starts it, against the reference Core of a microsandbox installation serving a real release.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildRelease } from '../../fixtures/release/build.ts';
import { writeFakeDist } from '../../fixtures/release/fake-dist.ts';
import { parseProviderFile } from '../../src/node/provider-file.ts';
import { startCore, type TestCore } from '../helpers/core.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { issueToken, listNodes } from '../helpers/node.ts';
import { NODE_UID as UID, outcomes, prepareRequest, runPrepare } from '../helpers/prepare.ts';

let scratch: string;
let core: TestCore;
let release: Awaited<ReturnType<typeof buildRelease>>;

before(async () => {
  // Short: microsandbox's runtime home (<store>/run) must fit in 48 bytes.
  scratch = mkdtempSync('/tmp/oac-ms-');
  chmodSync(scratch, 0o755);
  copyFileSync(requireExecutable(), join(scratch, 'oac-node'));
  chmodSync(join(scratch, 'oac-node'), 0o755);
  const dist = await writeFakeDist(join(scratch, 'dist'), 'microsandbox');
  release = await buildRelease({ ...dist, outDir: join(scratch, 'release'), version: '0.0.0' });
  core = await startCore(['--release-dir', release.outDir, '--provider', 'microsandbox']);
});
after(async () => {
  await core.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** microsandbox's `_prepare` needs no extra group: it never opens /dev/kvm (the node does). */
const prepare = (req: object) => runPrepare(join(scratch, 'oac-node'), UID, req);

const requestFor = (name: string, token: string, checkpointRoot: string | null = null) =>
  prepareRequest(core, scratch, name, token, {
    docker_host: 'unix:///nonexistent/docker.sock',
    checkpoint_root: checkpointRoot,
  });

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const mode = (path: string) => statSync(path).mode & 0o777;
const byKind = (kind: string) => {
  const file = release.manifest.files.find((f) => f.kind === kind);
  assert.ok(file, `the release has a ${kind}`);
  return file;
};

test('HOST-04 HOST-08 DL-06 microsandbox: verified files, the store and the imported image, as oac-node; a rerun changes nothing', async () => {
  const token = await issueToken(core);
  const req = await requestFor('first', token);
  const first = await prepare(req);
  assert.equal(first.status, 0, first.stderr + JSON.stringify(first.events));
  assert.deepEqual(outcomes(first), {
    // The directories it lies in: the fixture's scratch tree has them already.
    'directory:.oac': 'unchanged',
    'directory:.oac/nodes': 'unchanged',
    state: 'created',
    files: 'created',
    'microsandbox-runtime': 'created',
    'microsandbox-firmware': 'created',
    'microsandbox-helper': 'created',
    store: 'created',
    'store-images': 'created',
    'store-run': 'created',
    'store-checkpoints': 'created',
    runtime: 'created',
    'provider-file': 'created',
    enroll: 'created',
  });

  const files = join(req.state_dir, 'files');
  const kinds = ['microsandbox-runtime', 'microsandbox-firmware', 'microsandbox-helper'];
  assert.deepEqual(
    readdirSync(files).sort(),
    kinds.map((k) => byKind(k).name).sort(),
    'DL-06: only the three provider files stay; the Runtime archive is deleted after import',
  );
  for (const kind of kinds) {
    const path = join(files, byKind(kind).name);
    assert.equal(sha256(path), byKind(kind).sha256, `DL-01: ${kind} matches the manifest`);
    assert.equal(statSync(path).uid, UID, `${kind} belongs to oac-node`);
  }
  assert.equal(mode(join(files, byKind('microsandbox-helper').name)), 0o700, 'helper executable');

  const store = req.store_dir;
  for (const dir of [
    store,
    join(store, 'images'),
    join(store, 'run'),
    join(store, 'checkpoints'),
  ]) {
    assert.equal(statSync(dir).uid, UID, `${dir} belongs to oac-node (HOST-04)`);
    assert.equal(mode(dir), 0o700, `${dir} is private`);
  }
  const image = byKind('runtime-image');
  assert.ok(image.kind === 'runtime-image');
  const imported = join(store, 'images', image.image.id.replace('sha256:', ''));
  const index = JSON.parse(readFileSync(join(imported, 'index.json'), 'utf8')) as {
    manifests: Array<{ digest: string }>;
  };
  assert.equal(index.manifests[0]?.digest, image.image.manifest_digest, 'the OCI layout imported');

  const provider = parseProviderFile(
    readFileSync(join(req.state_dir, 'provider.json'), 'utf8'),
    'provider.json',
  );
  assert.equal(provider.provider, 'microsandbox');
  assert.ok(provider.provider === 'microsandbox');
  assert.equal(provider.adapter.runtime_sha256, byKind('microsandbox-runtime').sha256);
  assert.equal(provider.adapter.image, image.image.reference);
  assert.equal(provider.adapter.runtime_home, join(store, 'run'));
  assert.equal(
    provider.adapter.checkpoint_root,
    join(store, 'checkpoints'),
    'HOST-11: node-local by default',
  );
  const identity = JSON.parse(readFileSync(join(req.state_dir, 'identity.json'), 'utf8')) as {
    node_id: string;
  };
  assert.equal((await listNodes(core)).filter((n) => n.node_id === identity.node_id).length, 1);
  assert.ok(!JSON.stringify(first.events).includes(token), 'SEC-03: no token in the events');

  const providerMtime = statSync(join(req.state_dir, 'provider.json')).mtimeMs;
  const second = await prepare({ ...req, token: null });
  assert.equal(second.status, 0, second.stderr);
  assert.deepEqual(
    new Set(Object.values(outcomes(second))),
    new Set(['unchanged']),
    'RERUN-01: every step unchanged',
  );
  assert.equal(statSync(join(req.state_dir, 'provider.json')).mtimeMs, providerMtime);

  // A damaged Runtime file and a helper that lost its execute bit are repaired by a rerun.
  const runtime = join(files, byKind('microsandbox-runtime').name);
  writeFileSync(runtime, 'damaged');
  chmodSync(join(files, byKind('microsandbox-helper').name), 0o600);
  const third = await prepare({ ...req, token: null });
  assert.equal(third.status, 0, third.stderr);
  assert.equal(outcomes(third)['microsandbox-runtime'], 'created');
  assert.equal(outcomes(third)['microsandbox-helper'], 'created');
  assert.equal(outcomes(third)['microsandbox-firmware'], 'unchanged');
  assert.equal(sha256(runtime), byKind('microsandbox-runtime').sha256);
  assert.equal(mode(join(files, byKind('microsandbox-helper').name)), 0o700);

  // RERUN-02: another checkpoint store for a registered node: refused, provider file unchanged.
  const elsewhere = join(scratch, 'elsewhere');
  mkdirSync(elsewhere, { mode: 0o700 });
  chownSync(elsewhere, UID, UID);
  const before = readFileSync(join(req.state_dir, 'provider.json'), 'utf8');
  const fourth = await prepare({ ...req, token: null, checkpoint_root: elsewhere });
  assert.notEqual(fourth.status, 0);
  const failed = fourth.events.find((e) => e.type === 'step-failed');
  assert.equal(failed?.code, 'provider_file_changed', JSON.stringify(fourth.events));
  assert.equal(readFileSync(join(req.state_dir, 'provider.json'), 'utf8'), before);
});

test('HOST-11 --checkpoint-root: the shared store is recorded in the provider file and left as it was', async () => {
  const shared = join(scratch, 'shared-store');
  mkdirSync(shared, { mode: 0o700 });
  chownSync(shared, UID, UID);
  const req = await requestFor('shared', await issueToken(core), shared);
  const result = await prepare(req);
  assert.equal(result.status, 0, result.stderr + JSON.stringify(result.events));
  const provider = parseProviderFile(
    readFileSync(join(req.state_dir, 'provider.json'), 'utf8'),
    'provider.json',
  );
  assert.ok(provider.provider === 'microsandbox');
  assert.equal(provider.adapter.checkpoint_root, shared);
  assert.deepEqual(readdirSync(shared), [], 'the installer writes nothing into the shared store');
  assert.deepEqual(
    readdirSync(req.store_dir).sort(),
    ['images', 'run'],
    'no node-local checkpoint store beside a shared one',
  );
});

test('HOST-11 a checkpoint store oac-node cannot write stops before registration', async () => {
  const closed = join(scratch, 'closed-store');
  mkdirSync(closed, { mode: 0o700 }); // root's, 0700: oac-node cannot enter it
  const token = await issueToken(core);
  const req = await requestFor('closed', token, closed);
  const before = (await listNodes(core)).length;
  const result = await prepare(req);
  assert.notEqual(result.status, 0);
  const failed = result.events.find((e) => e.type === 'step-failed');
  assert.equal(failed?.code, 'checkpoint_root_unwritable', JSON.stringify(result.events));
  assert.match(failed?.message ?? '', new RegExp(`checkpoint store ${closed} is not a directory`));
  assert.equal((await listNodes(core)).length, before, 'nothing registered');
});
