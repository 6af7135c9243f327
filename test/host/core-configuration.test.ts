// The reference Core's configuration and identity reads against spec/machine-api.md: what the
// token and the node credential may read, ?generation= rules, and credentials that are not
// interchangeable. Real process, real HTTP on loopback.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { canonicalJson } from '../../src/canonical-json.ts';
import { call, enrollNode, errorCode, startCore, type TestCore } from '../helpers/core.ts';

let core: TestCore;
let configUrl: string;
let emptyRelease: string;

before(async () => {
  // An empty release directory: no manifest, so the release is "none" whatever .release holds.
  emptyRelease = await mkdtemp(join(tmpdir(), 'oac-core-empty-'));
  core = await startCore([
    '--installation-id',
    '0b5e6a3c-1d2f-4a5b-8c9d-0e1f2a3b4c5d',
    '--release-dir',
    emptyRelease,
  ]);
  configUrl = `${core.core_url}/api/v1/sandbox-node/configuration`;
});
after(async () => {
  await core.stop();
  await rm(emptyRelease, { recursive: true, force: true });
});

async function token(body: object = {}): Promise<string> {
  const r = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', body);
  return (r.body as { token: string }).token;
}

const asNode = (node: { node_id: string; credential: string }, query = '') =>
  call('GET', configUrl + query, {
    bearer: node.credential,
    headers: { 'x-oac-node-id': node.node_id },
  });

const setSpecification = (memory: number) =>
  core.coreApi('PUT', '/core/v1/sandbox/specification', {
    specification: { release: 'none', cpus: 1, memory_mib: memory },
  });

test('ENR-01 configuration with a token: exact fields, default docker specification, not consumed', async () => {
  const t = await token({ max_active: 2, max_retained: 3 });
  const first = await call('GET', configUrl, { bearer: t });
  assert.equal(first.status, 200);
  const c = first.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(c).sort(), [
    'core_url',
    'generation',
    'installation_id',
    'max_active',
    'max_retained',
    'provider',
    'specification',
    'specification_digest',
  ]);
  assert.equal(c.installation_id, '0b5e6a3c-1d2f-4a5b-8c9d-0e1f2a3b4c5d');
  assert.equal(c.core_url, core.core_url);
  assert.equal(c.provider, 'docker');
  assert.deepEqual(c.specification, { release: 'none', cpus: 1, memory_mib: 256 });
  const digest = createHash('sha256').update(canonicalJson(c.specification)).digest('hex');
  assert.equal(c.specification_digest, `sha256:${digest}`);
  assert.deepEqual([c.max_active, c.max_retained], [2, 3]);
  const second = await call('GET', configUrl, { bearer: t });
  assert.deepEqual(second.body, c, 'reading twice gives the same answer: nothing consumed');
});

test('machine-api 401 invalid_node_credential: configuration without or with a refused credential', async () => {
  assert.equal(errorCode(await call('GET', configUrl)), 'invalid_node_credential');
  const r = await call('GET', configUrl, { bearer: 'unknown-token-0123456789abcdefghij' });
  assert.equal(r.status, 401);
  const other = await startCore();
  try {
    const foreign = await other.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
    const t = (foreign.body as { token: string }).token;
    const refused = await call('GET', configUrl, { bearer: t });
    assert.equal(refused.status, 401, "another installation's token");
  } finally {
    await other.stop();
  }
});

test('machine-api credentials are not interchangeable: token, node credential, Core key', async () => {
  const node = await enrollNode(core);
  const t = await token();
  const identityUrl = `${core.core_url}/api/v1/sandbox-node/identity?node_id=${node.node_id}`;
  // The node credential is no token, the token is no node credential.
  assert.equal((await call('GET', configUrl, { bearer: node.credential })).status, 401);
  assert.equal((await asNode({ node_id: node.node_id, credential: t })).status, 401);
  assert.equal((await call('GET', identityUrl, { bearer: t })).status, 401);
  // The Core key opens nothing under /api/v1 ...
  assert.equal((await call('GET', configUrl, { bearer: core.core_key })).status, 401);
  assert.equal((await call('GET', identityUrl, { bearer: core.core_key })).status, 401);
  const enroll = await call('POST', `${core.core_url}/api/v1/sandbox-node/enroll`, {
    bearer: core.core_key,
    json: {},
  });
  assert.equal(errorCode(enroll), 'invalid_node_credential');
  // ... and machine credentials open nothing under /core/v1.
  for (const bearer of [t, node.credential]) {
    const r = await call('GET', `${core.core_url}/core/v1/sandbox/nodes`, { bearer });
    assert.equal(r.status, 401);
    assert.equal(errorCode(r), 'invalid_core_key');
  }
});

test('machine-api identity: node identity plus connected and provider_ready; 401 and 400 cases', async () => {
  const node = await enrollNode(core, { max_active: 5, max_retained: 7 });
  const url = `${core.core_url}/api/v1/sandbox-node/identity?node_id=`;
  const r = await call('GET', url + node.node_id, { bearer: node.credential });
  assert.equal(r.status, 200);
  const body = r.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), [
    'connected',
    'deployment_generation',
    'installation_id',
    'max_active',
    'max_retained',
    'node_id',
    'provider',
    'provider_ready',
    'specification_digest',
  ]);
  assert.deepEqual([body.connected, body.provider_ready, body.max_active], [false, false, 5]);
  const wrong = await call('GET', url + node.node_id, { bearer: 'w'.repeat(40) });
  assert.equal(errorCode(wrong), 'invalid_node_credential');
  const unknown = await call('GET', url + randomUUID(), { bearer: node.credential });
  assert.equal(unknown.status, 401);
  const upper = await call('GET', url + node.node_id.toUpperCase(), { bearer: node.credential });
  assert.equal(errorCode(upper), 'invalid_request');
  const missing = await call('GET', `${core.core_url}/api/v1/sandbox-node/identity`, {
    bearer: node.credential,
  });
  assert.equal(missing.status, 400);
});

test('machine-api configuration with node credential + X-OAC-Node-ID: node capacity, 400 on a malformed ID', async () => {
  const node = await enrollNode(core, { max_active: 1, max_retained: 0 });
  const r = await asNode(node);
  assert.equal(r.status, 200);
  const body = r.body as Record<string, unknown>;
  assert.deepEqual([body.max_active, body.max_retained], [1, 0]);
  const bad = await asNode({ ...node, node_id: node.node_id.replaceAll('-', '') });
  assert.equal(errorCode(bad), 'invalid_request');
});

test('machine-api ?generation=: malformed is 400; current, pin and held generations readable; others 409', async () => {
  const node = await enrollNode(core);
  const pinned = (await asNode(node)).body as { generation: number; specification_digest: string };
  for (const bad of ['0', '-1', 'abc', '1.5', '01', '', '99999999999999999999']) {
    const r = await asNode(node, `?generation=${bad}`);
    assert.equal(r.status, 400, bad);
    assert.equal(errorCode(r), 'invalid_request', bad);
  }
  assert.equal((await asNode(node, '?generation=1&generation=1')).status, 400, 'repeated');
  assert.equal((await asNode(node, '?gen=1')).status, 400, 'unknown parameter');

  assert.equal((await setSpecification(512)).status, 200);
  const between = (await core.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
    generation: number;
  };
  assert.equal((await setSpecification(1024)).status, 200);
  const current = pinned.generation + 2;
  assert.equal(((await asNode(node)).body as { generation: number }).generation, current);
  const pin = await asNode(node, `?generation=${pinned.generation}`);
  assert.equal(pin.status, 200, 'the enrolled generation is its serving pin');
  assert.equal(
    (pin.body as { specification_digest: string }).specification_digest,
    pinned.specification_digest,
  );
  const other = await asNode(node, `?generation=${between.generation}`);
  assert.equal(other.status, 409);
  assert.equal(errorCode(other), 'sandbox_specification_mismatch');
  assert.equal(errorCode(await asNode(node, '?generation=9999')), 'sandbox_specification_mismatch');

  // Work held on a generation keeps it readable.
  const work = await core.coreApi('PUT', `/core/v1/sandbox/nodes/${node.node_id}/work`, {
    sandboxes: 1,
    generation: between.generation,
  });
  assert.equal(work.status, 200);
  assert.equal((await asNode(node, `?generation=${between.generation}`)).status, 200);
  await core.coreApi('PUT', `/core/v1/sandbox/nodes/${node.node_id}/work`, { sandboxes: 0 });
  assert.equal((await asNode(node, `?generation=${between.generation}`)).status, 409);

  // A new node (token) reads only the current generation.
  const t = await token();
  assert.equal(
    (await call('GET', `${configUrl}?generation=${current}`, { bearer: t })).status,
    200,
  );
  const old = await call('GET', `${configUrl}?generation=${pinned.generation}`, { bearer: t });
  assert.equal(errorCode(old), 'sandbox_specification_mismatch');
});

test('machine-api 409 sandbox_reset_in_progress: a reset refuses the token read, not the node read', async () => {
  const node = await enrollNode(core);
  const t = await token();
  assert.equal(
    (await core.coreApi('POST', '/core/v1/sandbox/deployment/reset', { mode: 'force' })).status,
    202,
  );
  try {
    const refused = await call('GET', configUrl, { bearer: t });
    assert.equal(refused.status, 409);
    assert.equal(errorCode(refused), 'sandbox_reset_in_progress');
    assert.equal((await asNode(node)).status, 200, 'a registered node may read during a reset');
  } finally {
    await core.coreApi('DELETE', '/core/v1/sandbox/deployment/reset');
  }
  assert.equal((await call('GET', configUrl, { bearer: t })).status, 200);
});
