// The Core-key routes of the reference Core (docs/reference-core.md): enrollment tokens (Web's
// Add node), the deployment and its specification, the reset, and the node list. Real process,
// real HTTP on loopback.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  call,
  connectNode,
  enrollBody,
  enrollNode,
  errorCode,
  startCore,
  type TestCore,
} from '../helpers/core.ts';

let core: TestCore;
let emptyRelease: string;
before(async () => {
  // No installer in the release dir: the token response's command is null (the one-line
  // command itself is tested in one-liner.test.ts, with a release that has one).
  emptyRelease = mkdtempSync(join(tmpdir(), 'oac-empty-release-'));
  core = await startCore(['--provider', 'microsandbox', '--release-dir', emptyRelease]);
});
after(async () => {
  await core.stop();
  rmSync(emptyRelease, { recursive: true, force: true });
});

const TOKENS = '/core/v1/sandbox/enrollment-tokens';

test('ENR-01 enrollment token: 43+ URL-safe characters, expires_at an hour out, command null without an installer', async () => {
  const started = Date.now();
  const r = await core.coreApi('POST', TOKENS);
  assert.equal(r.status, 201);
  const body = r.body as { token: string; expires_at: string; command: null };
  assert.deepEqual(Object.keys(body).sort(), ['command', 'expires_at', 'token']);
  assert.match(body.token, /^[A-Za-z0-9_-]{43,}$/);
  assert.equal(body.command, null);
  const expires = Date.parse(body.expires_at);
  assert.match(body.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Math.abs(expires - started - 3_600_000) < 5_000);
  const config = await call('GET', `${core.core_url}/api/v1/sandbox-node/configuration`, {
    bearer: body.token,
  });
  const c = config.body as { max_active: number; max_retained: number; specification: object };
  assert.deepEqual([c.max_active, c.max_retained], [4, 8], 'default capacity');
  assert.deepEqual(Object.keys(c.specification).sort(), [
    'cpus',
    'environment_disk_mib',
    'memory_mib',
    'release',
    'root_disk_mib',
  ]);
});

test('enrollment-tokens: invalid bodies are 400 invalid_request; the Core key is required', async () => {
  for (const body of [
    { max_active: 0 },
    { max_retained: -1 },
    { ttl_seconds: 0 },
    { max_active: 1.5 },
    { max_active: '2' },
    { capacity: 2 },
  ]) {
    const r = await core.coreApi('POST', TOKENS, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(errorCode(r), 'invalid_request');
  }
  const keyless = await call('POST', core.core_url + TOKENS, { json: {} });
  assert.equal(errorCode(keyless), 'invalid_core_key');
  const wrong = await call('POST', core.core_url + TOKENS, { bearer: 'k'.repeat(64), json: {} });
  assert.equal(wrong.status, 401);
});

test('machine-api 409 sandbox_reset_in_progress: no tokens during a reset; completing it retires nodes and unused tokens', async () => {
  const node = await enrollNode(core);
  const ws = await connectNode(core, node);
  const unused = ((await core.coreApi('POST', TOKENS)).body as { token: string }).token;
  const body = await enrollBody(core, unused);
  const started = await core.coreApi('POST', '/core/v1/sandbox/deployment/reset', { mode: 'auto' });
  assert.equal(started.status, 202);
  assert.equal((started.body as { reset: { mode: string } }).reset.mode, 'auto');
  const twice = await core.coreApi('POST', '/core/v1/sandbox/deployment/reset', { mode: 'force' });
  assert.equal(errorCode(twice), 'sandbox_reset_in_progress');
  const refused = await core.coreApi('POST', TOKENS);
  assert.equal(refused.status, 409);
  assert.equal(errorCode(refused), 'sandbox_reset_in_progress');

  const done = await core.coreApi('POST', '/core/v1/sandbox/deployment/reset/complete');
  assert.equal(done.status, 200);
  assert.deepEqual(
    [(done.body as { initialised: boolean }).initialised, (done.body as { reset: null }).reset],
    [false, null],
  );
  assert.equal((await ws.closed).code, 4401, 'the retired node is told it was removed');
  const nodes = (await core.coreApi('GET', '/core/v1/sandbox/nodes')).body as { nodes: [] };
  assert.deepEqual(nodes.nodes, []);
  const api = `${core.core_url}/api/v1/sandbox-node`;
  const identity = await call('GET', `${api}/identity?node_id=${node.node_id}`, {
    bearer: node.credential,
  });
  assert.equal(identity.status, 401);
  assert.equal((await call('POST', `${api}/enroll`, { bearer: unused, json: body })).status, 401);
  assert.equal(errorCode(await core.coreApi('POST', TOKENS)), 'runtime_node_unavailable');

  // Set up the new backend: the deployment is initialised again, and nodes can be added.
  const put = await core.coreApi('PUT', '/core/v1/sandbox/deployment', { provider: 'docker' });
  assert.equal(put.status, 200);
  assert.equal((put.body as { provider: string }).provider, 'docker');
  assert.equal((await core.coreApi('POST', TOKENS)).status, 201);
});

test('deployment reset: cancel with DELETE; nothing to cancel or complete is 409', async () => {
  const reset = '/core/v1/sandbox/deployment/reset';
  assert.equal(errorCode(await core.coreApi('DELETE', reset)), 'sandbox_reset_not_in_progress');
  assert.equal((await core.coreApi('POST', `${reset}/complete`)).status, 409);
  assert.equal((await core.coreApi('POST', reset, { mode: 'later' })).status, 400);
  assert.equal((await core.coreApi('POST', reset, { mode: 'force' })).status, 202);
  const cancelled = await core.coreApi('DELETE', reset);
  assert.equal((cancelled.body as { reset: null }).reset, null);
});

test('deployment: provider change while nodes exist asks for a reset (409); public_url is what nodes must use', async () => {
  const node = await enrollNode(core);
  const d = '/core/v1/sandbox/deployment';
  const change = await core.coreApi('PUT', d, { provider: 'microsandbox' });
  assert.equal(change.status, 409);
  assert.equal(errorCode(change), 'sandbox_reset_required');
  const bad = await core.coreApi('PUT', d, { public_url: 'ftp://core.example/path' });
  assert.equal(errorCode(bad), 'invalid_request');
  const moved = await core.coreApi('PUT', d, { public_url: 'https://core.example/' });
  assert.equal((moved.body as { public_url: string }).public_url, 'https://core.example');
  const t = ((await core.coreApi('POST', TOKENS)).body as { token: string }).token;
  const body = await enrollBody(core, t);
  assert.equal(body.core_url, 'https://core.example', 'the configuration carries the public URL');
  const r = await call('POST', `${core.core_url}/api/v1/sandbox-node/enroll`, {
    bearer: t,
    json: { ...body, core_url: core.core_url },
  });
  assert.equal(errorCode(r), 'sandbox_node_address_mismatch');
  await core.coreApi('PUT', d, { public_url: core.core_url });
  const gone = await core.coreApi('DELETE', `/core/v1/sandbox/nodes/${node.node_id}`);
  assert.equal(gone.status, 204);
});

test('Core-key routes: unknown routes 404, wrong methods 405, bad specification 400', async () => {
  assert.equal(errorCode(await core.coreApi('GET', '/core/v1/sandbox/nope')), 'not_found');
  assert.equal((await core.coreApi('DELETE', '/core/v1/sandbox/nodes/not-a-uuid')).status, 404);
  assert.equal((await core.coreApi('POST', '/core/v1/sandbox/nodes')).status, 405);
  const spec = await core.coreApi('PUT', '/core/v1/sandbox/specification', {
    specification: { release: 'x', cpus: 0, memory_mib: 1 },
  });
  assert.equal(errorCode(spec), 'invalid_request');
  assert.equal((await call('GET', `${core.core_url}/core/v1/sandbox/nope`)).status, 401);
});
