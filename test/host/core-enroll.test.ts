// The reference Core's enrollment route against spec/machine-api.md: the body, the transaction
// order, and every error row that enrollment can answer. Real process, real HTTP on loopback.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { call, enrollBody, errorCode, startCore, type TestCore } from '../helpers/core.ts';

let core: TestCore;
let enrollUrl: string;

before(async () => {
  core = await startCore();
  enrollUrl = `${core.core_url}/api/v1/sandbox-node/enroll`;
});
after(() => core.stop());

async function token(body: object = {}): Promise<string> {
  const r = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', body);
  assert.equal(r.status, 201);
  return (r.body as { token: string }).token;
}

const enroll = (bearer: string | undefined, json: unknown) =>
  call('POST', enrollUrl, bearer === undefined ? { json } : { bearer, json });

test('ENR-03 enroll: 201 answers exactly the node identity, with the token capacity', async () => {
  const t = await token({ max_active: 3, max_retained: 6 });
  const body = await enrollBody(core, t);
  const r = await enroll(t, body);
  assert.equal(r.status, 201);
  const identity = r.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(identity).sort(), [
    'deployment_generation',
    'installation_id',
    'max_active',
    'max_retained',
    'node_id',
    'provider',
    'specification_digest',
  ]);
  assert.equal(identity.node_id, body.node_id);
  assert.equal(identity.provider, 'docker');
  assert.equal(identity.max_active, 3);
  assert.equal(identity.max_retained, 6);
  assert.equal(identity.specification_digest, body.specification_digest);
});

test('machine-api 401 invalid_node_credential: a token works once (second enroll with it is 401)', async () => {
  const t = await token();
  assert.equal((await enroll(t, await enrollBody(core, t))).status, 201);
  const again = await enroll(t, { ...(await enrollBody(core, t)), node_id: randomUUID() });
  assert.equal(again.status, 401);
  assert.equal(errorCode(again), 'invalid_node_credential');
});

test('machine-api 401 invalid_node_credential: missing, unknown and expired tokens', async () => {
  const body = await enrollBody(core, await token());
  assert.equal(errorCode(await enroll(undefined, body)), 'invalid_node_credential');
  assert.equal((await enroll('never-issued-0123456789abcdefghijklmnop', body)).status, 401);
  const short = await token({ ttl_seconds: 1 });
  const fresh = await enrollBody(core, short);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const expired = await enroll(short, fresh);
  assert.equal(expired.status, 401);
  assert.equal(errorCode(expired), 'invalid_node_credential');
});

test('machine-api ordering: a refused token is 401 even with a malformed body', async () => {
  const r = await call('POST', enrollUrl, { bearer: 'not-a-token-0123456789abcdef', raw: '{' });
  assert.equal(r.status, 401);
});

test('machine-api 400 invalid_request_error param core_url: enrollment without core_url', async () => {
  const t = await token();
  const { core_url: _dropped, ...body } = await enrollBody(core, t);
  // Missing core_url wins over every other problem of the body.
  const r = await enroll(t, { ...body, extra: 1 });
  assert.equal(r.status, 400);
  assert.deepEqual((r.body as { error: object }).error, {
    code: 'invalid_request_error',
    message: 'Enrollment requires core_url',
    param: 'core_url',
  });
});

test('machine-api 400 invalid_request: malformed bodies and node IDs (token stays usable)', async () => {
  const t = await token();
  const good = await enrollBody(core, t);
  const id = good.node_id as string;
  const cases: Array<[string, unknown]> = [
    ['unknown field', { ...good, max_active: 9 }],
    ['uppercase node_id', { ...good, node_id: id.toUpperCase() }],
    ['node_id without dashes', { ...good, node_id: id.replaceAll('-', '') }],
    ['node_id not a string', { ...good, node_id: 7 }],
    ['credential too short', { ...good, credential: 'x'.repeat(31) }],
    ['credential too long', { ...good, credential: 'x'.repeat(257) }],
    ['credential with whitespace', { ...good, credential: `${'x'.repeat(20)} ${'y'.repeat(20)}` }],
    ['empty name', { ...good, name: '' }],
    ['generation as a string', { ...good, deployment_generation: '1' }],
    ['generation zero', { ...good, deployment_generation: 0 }],
    ['malformed digest', { ...good, specification_digest: 'md5:x' }],
    ['core_url not a string', { ...good, core_url: 1 }],
    ['an array body', [good]],
    ['a null body', null],
  ];
  for (const [why, body] of cases) {
    const r = await enroll(t, body);
    assert.equal(r.status, 400, why);
    assert.equal(errorCode(r), 'invalid_request', why);
  }
  const malformed = await call('POST', enrollUrl, { bearer: t, raw: '{"node_id":' });
  assert.equal(errorCode(malformed), 'invalid_request');
  assert.equal((await enroll(t, good)).status, 201, 'a refused body leaves the token unused');
});

test('machine-api 400 invalid_request: provider differs from the deployment', async () => {
  const t = await token();
  const r = await enroll(t, { ...(await enrollBody(core, t)), provider: 'microsandbox' });
  assert.equal(r.status, 400);
  assert.equal(errorCode(r), 'invalid_request');
});

test('machine-api 409 sandbox_specification_mismatch: stale generation or foreign digest', async () => {
  const t = await token();
  const body = await enrollBody(core, t);
  const stale = await enroll(t, { ...body, deployment_generation: 99 });
  assert.equal(stale.status, 409);
  assert.equal(errorCode(stale), 'sandbox_specification_mismatch');
  const digest = await enroll(t, { ...body, specification_digest: `sha256:${'f'.repeat(64)}` });
  assert.equal(errorCode(digest), 'sandbox_specification_mismatch');
});

test('machine-api 409 sandbox_node_address_mismatch: core_url not the public URL; token stays unused', async () => {
  const t = await token();
  const body = await enrollBody(core, t);
  for (const url of ['http://127.0.0.1:1', `${core.core_url}/`, 'https://core.example']) {
    const r = await enroll(t, { ...body, core_url: url });
    assert.equal(r.status, 409, url);
    assert.equal(errorCode(r), 'sandbox_node_address_mismatch', url);
  }
  assert.equal((await enroll(t, body)).status, 201, 'the token was not consumed');
});

test('machine-api 409 idempotency_conflict: the node ID is already registered', async () => {
  const first = await token();
  const body = await enrollBody(core, first);
  assert.equal((await enroll(first, body)).status, 201);
  const second = await token();
  const r = await enroll(second, { ...body, credential: 'z'.repeat(40) });
  assert.equal(r.status, 409);
  assert.equal(errorCode(r), 'idempotency_conflict');
  assert.equal((await enroll(second, await enrollBody(core, second))).status, 201);
});

test('machine-api 409 sandbox_reset_in_progress: enrollment during a reset', async () => {
  const t = await token();
  const body = await enrollBody(core, t);
  assert.equal(
    (await core.coreApi('POST', '/core/v1/sandbox/deployment/reset', { mode: 'auto' })).status,
    202,
  );
  try {
    const r = await enroll(t, body);
    assert.equal(r.status, 409);
    assert.equal(errorCode(r), 'sandbox_reset_in_progress');
  } finally {
    assert.equal((await core.coreApi('DELETE', '/core/v1/sandbox/deployment/reset')).status, 200);
  }
  assert.equal((await enroll(t, body)).status, 201, 'cancelling the reset lets the token enroll');
});
