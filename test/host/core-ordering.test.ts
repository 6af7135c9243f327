// machine-api.md: "Credentials are checked before deployment state". A refused token is 401 even
// while the deployment is uninitialised or uses E2B; a valid token then gets 503 on configuration
// and enrollment, while the identity read and the node connection answer 401.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  call,
  enrollBody,
  enrollNode,
  errorCode,
  startCore,
  upgradeStatus,
  type TestCore,
} from '../helpers/core.ts';

let core: TestCore;
before(async () => {
  core = await startCore();
});
after(() => core.stop());

const api = (c: TestCore) => `${c.core_url}/api/v1/sandbox-node`;
const issue = async (c: TestCore, body: object = {}): Promise<string> =>
  ((await c.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', body)).body as { token: string })
    .token;

test('machine-api ordering: an uninitialised Core answers a foreign token 401 and an unknown node 401', async () => {
  const bare = await startCore(['--uninitialised']);
  try {
    const foreign = await issue(core);
    const config = await call('GET', `${api(bare)}/configuration`, { bearer: foreign });
    assert.equal(errorCode(config), 'invalid_node_credential');
    const body = await enrollBody(core, foreign);
    const enroll = await call('POST', `${api(bare)}/enroll`, { bearer: foreign, json: body });
    assert.equal(enroll.status, 401);
    const id = randomUUID();
    const identity = await call('GET', `${api(bare)}/identity?node_id=${id}`, {
      bearer: 'c'.repeat(40),
    });
    assert.equal(identity.status, 401);
    const ws = `${api(bare)}/connect?node_id=${id}`;
    assert.equal(await upgradeStatus(ws, { authorization: `Bearer ${'c'.repeat(40)}` }), 401);
    // Web's Add node is refused too until the deployment is set up.
    const tokens = await bare.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
    assert.equal(tokens.status, 503);
    assert.equal(errorCode(tokens), 'runtime_node_unavailable');
    // PUT deployment initialises it.
    const put = await bare.coreApi('PUT', '/core/v1/sandbox/deployment', {});
    assert.equal((put.body as { initialised: boolean }).initialised, true);
    assert.equal(
      (await bare.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {})).status,
      201,
    );
  } finally {
    await bare.stop();
  }
});

test('machine-api 503 runtime_node_unavailable: before initialisation a valid token gets 503; consumed and expired get 401; nodes get 401', async () => {
  const consumed = await issue(core);
  const node = await enrollNode(core);
  await call('POST', `${api(core)}/enroll`, {
    bearer: consumed,
    json: await enrollBody(core, consumed),
  });
  const expiring = await issue(core, { ttl_seconds: 1 });
  const valid = await issue(core);
  const body = await enrollBody(core, valid);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.equal(
    (await core.coreApi('PUT', '/__fixture/deployment', { initialised: false })).status,
    200,
  );
  try {
    for (const bearer of [consumed, expiring]) {
      assert.equal((await call('GET', `${api(core)}/configuration`, { bearer })).status, 401);
      const r = await call('POST', `${api(core)}/enroll`, { bearer, json: body });
      assert.equal(r.status, 401);
    }
    const config = await call('GET', `${api(core)}/configuration`, { bearer: valid });
    assert.equal(config.status, 503);
    assert.equal(errorCode(config), 'runtime_node_unavailable');
    const enroll = await call('POST', `${api(core)}/enroll`, { bearer: valid, json: body });
    assert.equal(enroll.status, 503);
    assert.equal(errorCode(enroll), 'runtime_node_unavailable');
    const auth = { bearer: node.credential };
    const identity = await call('GET', `${api(core)}/identity?node_id=${node.node_id}`, auth);
    assert.equal(errorCode(identity), 'invalid_node_credential');
    const ws = `${api(core)}/connect?node_id=${node.node_id}`;
    assert.equal(await upgradeStatus(ws, { authorization: `Bearer ${node.credential}` }), 401);
  } finally {
    await core.coreApi('PUT', '/__fixture/deployment', { initialised: true });
  }
  const again = await call('POST', `${api(core)}/enroll`, { bearer: valid, json: body });
  assert.equal(again.status, 201, 'the valid token survived and enrolls once initialised');
});

test('machine-api 503 runtime_node_unavailable: a deployment that uses E2B has no nodes', async () => {
  const c = await startCore();
  try {
    const valid = await issue(c);
    const body = await enrollBody(c, valid);
    const put = await c.coreApi('PUT', '/core/v1/sandbox/deployment', { provider: 'e2b' });
    assert.equal(put.status, 200);
    assert.equal((await call('GET', `${api(c)}/configuration`, { bearer: valid })).status, 503);
    const r = await call('POST', `${api(c)}/enroll`, { bearer: valid, json: body });
    assert.equal(errorCode(r), 'runtime_node_unavailable');
    const foreign = await call('GET', `${api(c)}/configuration`, { bearer: 'f'.repeat(43) });
    assert.equal(foreign.status, 401, 'a refused token is still 401 under E2B');
  } finally {
    await c.stop();
  }
});
