// Hostile and clumsy input to the reference Core: every one gets a documented 4xx, never a 500
// or a crash, and the Core keeps serving afterwards (docs/reference-core.md "Bad input").
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { call, enrollBody, errorCode, startCore, type TestCore } from '../helpers/core.ts';

let core: TestCore;
let token: string;
before(async () => {
  core = await startCore();
  const r = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
  token = (r.body as { token: string }).token;
});
after(() => core.stop());

const api = (path: string) => `${core.core_url}/api/v1/sandbox-node${path}`;

async function stillServing(): Promise<void> {
  const r = await call('GET', api('/configuration'), { bearer: token });
  assert.equal(r.status, 200, 'the Core still answers a valid request');
  const log = (await core.coreApi('GET', '/__fixture/requests')).body as Array<{ status: number }>;
  assert.deepEqual(
    log.filter((e) => e.status >= 500),
    [],
    'no 500 anywhere in the request log',
  );
}

test('bad input: malformed JSON, wrong types and unknown fields are 400 invalid_request', async () => {
  const bodies = ['{', 'null', '[]', '"text"', '{"node_id": }', '\u0000'];
  for (const raw of bodies) {
    const r = await call('POST', api('/enroll'), { bearer: token, raw });
    assert.equal(r.status, 400, raw);
    assert.equal(errorCode(r), 'invalid_request', raw);
  }
  const good = await enrollBody(core, token);
  const wrongTypes = { ...good, name: 5, deployment_generation: 'one' };
  assert.equal(
    errorCode(await call('POST', api('/enroll'), { bearer: token, json: wrongTypes })),
    'invalid_request',
  );
  const unknown = { ...good, capacity: { max_active: 99 } };
  assert.equal(
    errorCode(await call('POST', api('/enroll'), { bearer: token, json: unknown })),
    'invalid_request',
  );
  for (const [path, raw] of [
    ['/core/v1/sandbox/enrollment-tokens', '{"max_active": "four"}'],
    ['/core/v1/sandbox/deployment', '{'],
    ['/core/v1/sandbox/specification', '{"specification": []}'],
  ] as const) {
    const r = await call(path.endsWith('tokens') ? 'POST' : 'PUT', core.core_url + path, {
      bearer: core.core_key,
      raw,
    });
    assert.equal(r.status, 400, path);
  }
  await stillServing();
});

test('bad input: a 1 MiB body is 400 invalid_request, on machine and Core-key routes', async () => {
  const huge = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
  const enroll = await call('POST', api('/enroll'), { bearer: token, raw: huge });
  assert.equal(enroll.status, 400);
  assert.match((enroll.body as { error: { message: string } }).error.message, /65536 bytes/);
  const tokens = await call('POST', `${core.core_url}/core/v1/sandbox/enrollment-tokens`, {
    bearer: core.core_key,
    raw: huge,
  });
  assert.equal(tokens.status, 400);
  const keyless = await call('POST', `${core.core_url}/core/v1/sandbox/enrollment-tokens`, {
    bearer: 'wrong-key-0123456789abcdef',
    raw: huge,
  });
  assert.equal(keyless.status, 401, 'the body is drained, the 401 arrives');
  await stillServing();
});

test('bad input: non-canonical UUIDs (uppercase, no dashes, braces) are 400 or 404, never 500', async () => {
  const id = 'a3bb189e-8bf9-4888-9912-ace4e6543002';
  for (const bad of [id.toUpperCase(), id.replaceAll('-', ''), `{${id}}`, `${id}0`, 'x']) {
    const identity = await call('GET', api(`/identity?node_id=${encodeURIComponent(bad)}`), {
      bearer: 'c'.repeat(40),
    });
    assert.equal(identity.status, 400, bad);
    const config = await call('GET', api('/configuration'), {
      bearer: 'c'.repeat(40),
      headers: { 'x-oac-node-id': bad },
    });
    assert.equal(config.status, 400, bad);
    const del = await core.coreApi('DELETE', `/core/v1/sandbox/nodes/${encodeURIComponent(bad)}`);
    assert.equal(del.status, 404, bad);
  }
  await stillServing();
});

test('bad input: wrong methods are 405, unknown routes 404, stray query parameters 400', async () => {
  assert.equal(
    errorCode(await call('GET', api('/enroll'), { bearer: token })),
    'method_not_allowed',
  );
  assert.equal((await call('DELETE', api('/configuration'), { bearer: token })).status, 405);
  assert.equal((await call('POST', api('/identity'), { bearer: token, json: {} })).status, 405);
  for (const path of [
    '/api/v1/nope',
    '/api/v1/sandbox-node/enroll/',
    '/',
    '/api/v1/sandbox-node',
  ]) {
    const r = await call('GET', core.core_url + path, { bearer: token });
    assert.equal(r.status, 404, path);
    assert.equal(errorCode(r), 'not_found', path);
  }
  assert.equal((await call('GET', api('/configuration?x=1'), { bearer: token })).status, 400);
  assert.equal((await call('GET', api('/configuration?token=1'), { bearer: token })).status, 400);
  await stillServing();
});

test('bad input: garbage on the socket and a half-sent request leave the Core serving', async () => {
  await new Promise<void>((resolve) => {
    const { port } = new URL(core.core_url);
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write('NOT HTTP AT ALL\r\n\r\n');
    });
    socket.on('data', () => socket.destroy());
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
  await new Promise<void>((resolve) => {
    const { port } = new URL(core.core_url);
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        'POST /api/v1/sandbox-node/enroll HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"no',
      );
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on('close', () => resolve());
  });
  await stillServing();
});
