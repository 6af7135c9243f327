// The Core client against the reference Core over real HTTP on loopback (issue #2 item 3: no
// HTTP mocks). Each test names the requirement or machine-api.md table row it keeps.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { CoreClient } from '../../src/net/core-client.ts';
import { CoreError } from '../../src/net/core-errors.ts';
import type { EnrollRequest, NodeConfiguration } from '../../src/net/core-schemas.ts';
import { startCore } from '../helpers/core.ts';

type Core = Awaited<ReturnType<typeof startCore>>;
const fast = { attempts: 3, baseDelayMs: 20, maxDelayMs: 50 };
let core: Core;

before(async () => {
  core = await startCore();
});
after(async () => {
  await core.stop();
});

const client = (c: Core = core, timeoutMs = 3000) =>
  new CoreClient({ coreUrl: c.core_url, retry: fast, timeoutMs });

async function issueToken(c: Core = core, body: object = {}): Promise<string> {
  const r = await c.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return (r.body as { token: string }).token;
}

function enrollBody(config: NodeConfiguration, coreUrl = config.core_url): EnrollRequest {
  return {
    node_id: randomUUID(),
    credential: randomBytes(32).toString('base64url'),
    name: 'worker-1',
    provider: config.provider,
    backend_fingerprint: 'sha256:test',
    deployment_generation: config.generation,
    specification_digest: config.specification_digest,
    core_url: coreUrl,
  };
}

async function requestsTo(c: Core, path: string): Promise<number> {
  const r = await c.coreApi('GET', '/__fixture/requests');
  const log = r.body as Array<{ path: string }>;
  return log.filter((entry) => entry.path.startsWith(path)).length;
}

async function failure(promise: Promise<unknown>): Promise<CoreError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CoreError, `expected a CoreError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

test('ENR-01 the configuration read with a token is typed and does not consume the token', async () => {
  const token = await issueToken();
  const config = await client().readConfiguration({ kind: 'token', token });
  assert.equal(config.provider, 'docker');
  assert.equal(config.core_url, core.core_url);
  assert.ok(config.generation >= 1);
  await client().readConfiguration({ kind: 'token', token });
  const identity = await client().enroll(token, enrollBody(config));
  assert.equal(identity.provider, 'docker');
});

test('ENR-02/ENR-03 enroll, then identity and configuration with the node credential', async () => {
  const token = await issueToken(core, { max_active: 3, max_retained: 5 });
  const config = await client().readConfiguration({ kind: 'token', token });
  const body = enrollBody(config);
  const identity = await client().enroll(token, body);
  assert.deepEqual(
    {
      id: identity.node_id,
      a: identity.max_active,
      r: identity.max_retained,
      g: identity.deployment_generation,
    },
    { id: body.node_id, a: 3, r: 5, g: config.generation },
  );
  const view = await client().identity(body.node_id, body.credential);
  assert.equal(view.node_id, body.node_id);
  assert.equal(view.connected, false);
  const nodeAuth = { kind: 'node', nodeId: body.node_id, credential: body.credential } as const;
  const again = await client().readConfiguration(nodeAuth);
  assert.equal(again.specification_digest, config.specification_digest);
  const pinned = await client().readConfiguration(nodeAuth, config.generation);
  assert.equal(pinned.generation, config.generation);
});

test('machine-api 401 invalid_node_credential: a used token is "expired or already used", not retried', async () => {
  const token = await issueToken();
  const config = await client().readConfiguration({ kind: 'token', token });
  await client().enroll(token, enrollBody(config));
  await core.coreApi('DELETE', '/__fixture/requests');
  const error = await failure(client().readConfiguration({ kind: 'token', token }));
  assert.equal(error.code, 'enrollment_token_refused');
  assert.equal(error.message, 'The enrollment command expired or was already used');
  assert.equal(
    await requestsTo(core, '/api/v1/sandbox-node/configuration'),
    1,
    'a 4xx is never retried',
  );
});

test('NODE-02 401 with a node credential: "Core no longer accepts this node"', async () => {
  const error = await failure(client().identity(randomUUID(), 'x'.repeat(40)));
  assert.equal(error.code, 'node_credential_refused');
  assert.equal(error.message, 'Core no longer accepts this node');
});

test('machine-api 409 sandbox_node_address_mismatch maps to the guide line', async () => {
  const token = await issueToken();
  const config = await client().readConfiguration({ kind: 'token', token });
  const error = await failure(client().enroll(token, enrollBody(config, 'http://127.0.0.1:1')));
  assert.equal(error.code, 'core_url_changed');
  assert.equal(error.message, "Core's public URL changed after this command was generated");
});

test('machine-api 409 idempotency_conflict: a node ID enrolled twice', async () => {
  const first = await issueToken();
  const config = await client().readConfiguration({ kind: 'token', token: first });
  const body = enrollBody(config);
  await client().enroll(first, body);
  const second = await issueToken();
  const error = await failure(
    client().enroll(second, { ...body, credential: randomBytes(32).toString('hex') }),
  );
  assert.equal(error.code, 'node_id_taken');
  assert.equal(error.status, 409);
});

test('machine-api 409 sandbox_specification_mismatch: enrolling with a stale generation', async () => {
  const token = await issueToken();
  const config = await client().readConfiguration({ kind: 'token', token });
  const error = await failure(
    client().enroll(token, { ...enrollBody(config), deployment_generation: config.generation + 7 }),
  );
  assert.equal(error.code, 'specification_changed');
});

test('issue #2 503 is retried with backoff, and a later success is returned', async () => {
  const token = await issueToken();
  await core.coreApi('DELETE', '/__fixture/requests');
  const path = '/api/v1/sandbox-node/configuration';
  const fault = { target: path, fault: { kind: 'status', status: 503 }, count: 2 };
  assert.equal((await core.coreApi('PUT', '/__fixture/faults', fault)).status < 300, true);
  const config = await client().readConfiguration({ kind: 'token', token });
  assert.equal(config.provider, 'docker');
  assert.equal(await requestsTo(core, path), 3);
});

test('machine-api 503 runtime_node_unavailable: retried up to the bound, then "not initialised"', async () => {
  const token = await issueToken();
  const path = '/api/v1/sandbox-node/configuration';
  await core.coreApi('DELETE', '/__fixture/requests');
  // The fault switch answers the documented 503 body for as many tries as the client makes.
  const fault = { target: path, fault: { kind: 'status', status: 503 }, count: fast.attempts };
  await core.coreApi('PUT', '/__fixture/faults', fault);
  const error = await failure(client().readConfiguration({ kind: 'token', token }));
  assert.equal(error.code, 'core_not_ready');
  assert.equal(
    error.message,
    "Core's sandbox deployment is not initialised, or its storage is unavailable",
  );
  assert.equal(await requestsTo(core, path), fast.attempts);
});

test('machine-api ordering: an uninitialised Core answers an unknown token 401, not 503', async () => {
  const bare = await startCore(['--uninitialised']);
  try {
    const token = 'never-issued-token-0123456789abcdef';
    const error = await failure(client(bare).readConfiguration({ kind: 'token', token }));
    assert.equal(error.code, 'enrollment_token_refused');
  } finally {
    await bare.stop();
  }
});

test('issue #2 connection refused is retried, then named with the origin', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const c = new CoreClient({ coreUrl: `http://127.0.0.1:${port}`, retry: fast });
  const error = await failure(
    c.readConfiguration({ kind: 'token', token: 'tok-0123456789abcdef' }),
  );
  assert.equal(error.code, 'core_unreachable');
  assert.match(
    error.message,
    new RegExp(`^Cannot reach Core at http://127.0.0.1:${port}: connection refused`),
  );
});

test('issue #2 a stalled answer times out and is retried within the bound', async () => {
  const token = await issueToken();
  const path = '/api/v1/sandbox-node/configuration';
  await core.coreApi('DELETE', '/__fixture/requests');
  await core.coreApi('PUT', '/__fixture/faults', {
    target: path,
    fault: { kind: 'stall' },
    count: 3,
  });
  const started = Date.now();
  const error = await failure(client(core, 300).readConfiguration({ kind: 'token', token }));
  assert.equal(error.code, 'core_unreachable');
  assert.match(error.message, /timed out/);
  assert.equal(await requestsTo(core, path), fast.attempts);
  assert.ok(Date.now() - started < 10_000);
  await core.coreApi('DELETE', '/__fixture/faults');
});

test('SEC-03 / machine-api credentials travel only in Authorization: Bearer, never in the URL', async () => {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'invalid_node_credential' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const c = new CoreClient({
      coreUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      retry: fast,
    });
    const token = 'tok-SECRET-0123456789';
    const credential = 'cred-SECRET-0123456789abcdefghijklmnop';
    const nodeId = randomUUID();
    const errors = await Promise.all([
      failure(c.readConfiguration({ kind: 'token', token })),
      failure(c.readConfiguration({ kind: 'node', nodeId, credential })),
      failure(c.identity(nodeId, credential)),
    ]);
    assert.equal(seen.length, 3);
    for (const { url, headers } of seen) {
      assert.doesNotMatch(url, /SECRET/);
      assert.match(String(headers.authorization), /^Bearer (tok|cred)-SECRET-/);
    }
    assert.equal(seen.filter((s) => s.headers['x-oac-node-id'] === nodeId).length >= 1, true);
    for (const error of errors)
      assert.doesNotMatch(`${error.message} ${error.hint ?? ''}`, /SECRET/);
  } finally {
    server.close();
  }
});
