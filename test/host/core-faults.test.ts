// Fault switches of the reference Core (docs/reference-core.md "Fault switches"), each observed
// from a real client: what the download code (DL-02, DL-03) and the Core client must survive.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { request } from 'undici';
import {
  call,
  enrollBody,
  errorCode,
  makeReleaseDir,
  startCore,
  type SampleRelease,
  type TestCore,
} from '../helpers/core.ts';

let release: SampleRelease;
let core: TestCore;
before(async () => {
  release = await makeReleaseDir();
  core = await startCore(['--release-dir', release.dir]);
});
afterEach(() => core.coreApi('DELETE', '/__fixture/faults'));
after(async () => {
  await core.stop();
  await release.cleanup();
});

const program = () => release.files.find((f) => f.kind === 'node-program')!;
const image = () => release.files.find((f) => f.kind === 'runtime-image')!;
const consoleFile = (name: string) => `${core.console_url}/node-files/${release.release}/${name}`;
const releaseFile = (name: string) => `${core.release_url}/releases/${release.release}/${name}`;

async function arm(target: string, fault: object, count?: number): Promise<void> {
  const r = await core.coreApi('PUT', '/__fixture/faults', { target, fault, count });
  assert.equal(r.status, 204, JSON.stringify(r.body));
}

// Reads as much of the body as arrives; the error (if any) says how the transfer ended.
async function fetchBody(url: string, headers: Record<string, string> = {}, bodyTimeout = 10_000) {
  const r = await request(url, { headers, bodyTimeout });
  const chunks: Buffer[] = [];
  let error: (Error & { code?: string }) | undefined;
  try {
    for await (const chunk of r.body) chunks.push(chunk as Buffer);
  } catch (e) {
    error = e as Error & { code?: string };
  }
  return { status: r.statusCode, headers: r.headers, body: Buffer.concat(chunks), error };
}

test('DL-03 fault stall: headers and N bytes, then silence until the client times out', async () => {
  await arm(program().name, { kind: 'stall', after_bytes: 1000 });
  const started = Date.now();
  const r = await fetchBody(consoleFile(program().name), {}, 400);
  assert.equal(r.status, 200);
  assert.equal(r.body.length, 1000);
  assert.equal(r.error?.code, 'UND_ERR_BODY_TIMEOUT');
  assert.ok(Date.now() - started >= 350);
});

test('DL-02 fault drop: the connection ends after N bytes, a short body', async () => {
  await arm(program().name, { kind: 'drop', after_bytes: 5000 });
  const r = await fetchBody(consoleFile(program().name));
  assert.equal(r.headers['content-length'], String(program().data.length));
  assert.equal(r.body.length, 5000);
  assert.deepEqual(r.body, program().data.subarray(0, 5000));
  assert.ok(r.error, 'the client sees the transfer fail');
});

test('DL-03 fault drip: the body arrives at the given pace', async () => {
  await arm(program().name, { kind: 'drip', bytes_per_minute: 600_000 });
  const started = Date.now();
  const r = await fetchBody(consoleFile(program().name), { range: 'bytes=0-14999' });
  const elapsed = Date.now() - started;
  assert.equal(r.status, 206);
  assert.deepEqual(r.body, program().data.subarray(0, 15_000));
  assert.ok(elapsed >= 1200 && elapsed < 5000, `15 000 bytes at 10 000/s took ${elapsed} ms`);
});

test('DL-02 fault ignore_range: a range request gets 200 and the whole file', async () => {
  await arm(program().name, { kind: 'ignore_range' }, 1);
  const r = await fetchBody(consoleFile(program().name), { range: 'bytes=1000-' });
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-range'], undefined);
  assert.deepEqual(r.body, program().data);
  const next = await fetchBody(consoleFile(program().name), { range: 'bytes=1000-' });
  assert.equal(next.status, 206, 'count 1: only the next request');
});

test('fault wrong_length: Content-Length off by delta, the body cannot match it', async () => {
  const size = program().data.length;
  await arm(program().name, { kind: 'wrong_length', delta: 10 }, 1);
  const longer = await fetchBody(consoleFile(program().name));
  assert.equal(longer.headers['content-length'], String(size + 10));
  assert.ok(longer.error, 'fewer bytes than announced: a premature close');
  await arm(program().name, { kind: 'wrong_length', delta: -10 }, 1);
  const shorter = await fetchBody(consoleFile(program().name));
  assert.equal(shorter.headers['content-length'], String(size - 10));
  assert.ok(shorter.body.length <= size - 10);
});

test('fault absent and status: 404 for a missing file, any 5xx; both servers for a file name', async () => {
  await arm(program().name, { kind: 'absent' }, 2);
  assert.equal((await fetchBody(consoleFile(program().name))).status, 404);
  assert.equal((await fetchBody(releaseFile(program().name))).status, 404);
  assert.equal((await fetchBody(consoleFile(program().name))).status, 200, 'count 2 used up');
  await arm('oac-node.gz', { kind: 'status', status: 502 });
  assert.equal((await fetchBody(`${core.console_url}/node-install/oac-node.gz`)).status, 502);
  assert.equal((await fetchBody(`${core.console_url}/node-install/oac-node.gz`)).status, 502);
  await core.coreApi('DELETE', '/__fixture/faults');
  assert.equal((await fetchBody(`${core.console_url}/node-install/oac-node.gz`)).status, 200);
});

test('fault on a redirected file: the console still redirects, the release server misbehaves', async () => {
  await arm(image().name, { kind: 'drop', after_bytes: 100 });
  const redirect = await request(consoleFile(image().name));
  await redirect.body.dump();
  assert.equal(redirect.statusCode, 302);
  const r = await fetchBody(String(redirect.headers.location));
  assert.equal(r.body.length, 100);
  assert.ok(r.error);
});

test('machine-api 503 runtime_node_unavailable via fault status on an API route; other 5xx too', async () => {
  const path = '/api/v1/sandbox-node/configuration';
  await arm(path, { kind: 'status', status: 503 }, 1);
  const r = await call('GET', core.core_url + path, { bearer: 'anything-at-all-0123456789' });
  assert.equal(r.status, 503);
  assert.equal(errorCode(r), 'runtime_node_unavailable');
  await arm(path, { kind: 'status', status: 500 }, 1);
  assert.equal((await call('GET', core.core_url + path)).status, 500);
  assert.equal((await call('GET', core.core_url + path)).status, 401, 'back to normal');
});

test('ENR-02 fault lose_response: the enrollment commits, the answer is lost', async () => {
  const issued = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
  const token = (issued.body as { token: string }).token;
  const body = await enrollBody(core, token);
  const api = `${core.core_url}/api/v1/sandbox-node`;
  await arm('/api/v1/sandbox-node/enroll', { kind: 'lose_response' }, 1);
  await assert.rejects(call('POST', `${api}/enroll`, { bearer: token, json: body }));
  const identity = await call('GET', `${api}/identity?node_id=${String(body.node_id)}`, {
    bearer: String(body.credential),
  });
  assert.equal(identity.status, 200, 'the node is registered');
  const retry = await call('POST', `${api}/enroll`, { bearer: token, json: body });
  assert.equal(retry.status, 401, 'and the token is consumed');
});

test('fault switches: schema checked (400), Core key required (401)', async () => {
  for (const fault of [
    { kind: 'explode' },
    { kind: 'status', status: 404 },
    { kind: 'drop' },
    { kind: 'stall', after_bytes: -1 },
    { kind: 'ignore_range', extra: true },
  ]) {
    const r = await core.coreApi('PUT', '/__fixture/faults', { target: 'x', fault });
    assert.equal(r.status, 400, JSON.stringify(fault));
  }
  const zero = await core.coreApi('PUT', '/__fixture/faults', {
    target: 'x',
    fault: { kind: 'absent' },
    count: 0,
  });
  assert.equal(zero.status, 400);
  const keyless = await call('PUT', `${core.core_url}/__fixture/faults`, {
    json: { target: 'x', fault: { kind: 'absent' } },
  });
  assert.equal(keyless.status, 401);
});
