// The console and release server of the reference Core (docs/release-manifest.md "Where the files
// are served"): installer files, manifests, node files with Range (DL-01, DL-02), redirects of the
// files the console lacks, and paths that must never escape the release directory (SEC-04).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { request as rawRequest } from 'node:http';
import { request } from 'undici';
import { makeReleaseDir, startCore, type SampleRelease, type TestCore } from '../helpers/core.ts';

let release: SampleRelease;
let core: TestCore;
before(async () => {
  release = await makeReleaseDir();
  core = await startCore(['--release-dir', release.dir]);
});
after(async () => {
  await core.stop();
  await release.cleanup();
});

async function get(url: string, headers: Record<string, string> = {}, method = 'GET') {
  const r = await request(url, { method: method as 'GET', headers });
  const body = Buffer.from(await r.body.arrayBuffer());
  return { status: r.statusCode, headers: r.headers, body };
}
const byKind = (kind: string) => release.files.find((f) => f.kind === kind)!;
const nodeFile = (name: string) => `${core.console_url}/node-files/${release.release}/${name}`;

test('DL-01 the console serves the installer and its SHA256SUMS, GET and HEAD', async () => {
  const gz = await get(`${core.console_url}/node-install/oac-node.gz`);
  assert.equal(gz.status, 200);
  assert.deepEqual(gz.body, release.installer);
  assert.equal(gz.headers['accept-ranges'], 'bytes');
  const sums = await get(`${core.console_url}/node-install/SHA256SUMS`);
  assert.match(sums.body.toString(), /^[0-9a-f]{64} {2}oac-node\n[0-9a-f]{64} {2}oac-node\.gz\n$/);
  const head = await get(`${core.console_url}/node-install/oac-node.gz`, {}, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], String(release.installer.length));
  assert.equal(head.body.length, 0);
});

test('DL-01 the specification names the release; both servers serve its manifest', async () => {
  const d = await core.coreApi('GET', '/core/v1/sandbox/deployment');
  assert.equal(
    (d.body as { specification: { release: string } }).specification.release,
    release.release,
  );
  const viaConsole = await get(nodeFile('manifest.json'));
  const viaRelease = await get(`${core.release_url}/releases/${release.release}/manifest.json`);
  assert.equal(viaConsole.status, 200);
  assert.deepEqual(viaConsole.body, viaRelease.body);
  assert.equal(JSON.parse(viaConsole.body.toString()).release, release.release);
});

test('DL-02 Range: bytes=N- and bytes=N-M answer 206 with Content-Range; past the end is 416', async () => {
  const f = byKind('node-program');
  const size = f.data.length;
  const open = await get(nodeFile(f.name), { range: 'bytes=1000-' });
  assert.equal(open.status, 206);
  assert.equal(open.headers['content-range'], `bytes 1000-${size - 1}/${size}`);
  assert.equal(open.headers['content-length'], String(size - 1000));
  assert.deepEqual(open.body, f.data.subarray(1000));
  const closed = await get(nodeFile(f.name), { range: 'bytes=10-19' });
  assert.equal(closed.status, 206);
  assert.equal(closed.headers['content-range'], `bytes 10-19/${size}`);
  assert.deepEqual(closed.body, f.data.subarray(10, 20));
  const past = await get(nodeFile(f.name), { range: `bytes=${size}-` });
  assert.equal(past.status, 416);
  assert.equal(past.headers['content-range'], `bytes */${size}`);
  const whole = await get(nodeFile(f.name), { range: 'bytes=5-2' });
  assert.equal(whole.status, 200, 'an invalid range is ignored');
  const head = await get(nodeFile(f.name), { range: 'bytes=100-' }, 'HEAD');
  assert.deepEqual([head.status, head.headers['content-length']], [206, String(size - 100)]);
});

test('DL-01 the console redirects the Runtime image to the release server, which honours Range', async () => {
  const image = byKind('runtime-image');
  const r = await get(nodeFile(image.name));
  assert.equal(r.status, 302);
  const location = String(r.headers.location);
  assert.equal(location, `${core.release_url}/releases/${release.release}/${image.name}`);
  const full = await get(location);
  assert.deepEqual(full.body, image.data);
  const tail = await get(location, { range: 'bytes=409000-' });
  assert.equal(tail.status, 206);
  assert.deepEqual(tail.body, image.data.subarray(409000));
});

test('console-files fixture: hold all, none, or a list of names', async () => {
  const image = byKind('runtime-image');
  const program = byKind('node-program');
  try {
    await core.coreApi('PUT', '/__fixture/console-files', { hold: 'all' });
    assert.equal((await get(nodeFile(image.name))).status, 200);
    await core.coreApi('PUT', '/__fixture/console-files', { hold: 'none' });
    assert.equal((await get(nodeFile(program.name))).status, 302);
    await core.coreApi('PUT', '/__fixture/console-files', { hold: [image.name] });
    assert.equal((await get(nodeFile(image.name))).status, 200);
    assert.equal((await get(nodeFile(program.name))).status, 302);
    const keyless = await get(`${core.console_url}/__fixture/requests`);
    assert.equal(keyless.status, 401);
  } finally {
    await core.coreApi('PUT', '/__fixture/console-files', { hold: 'default' });
  }
});

// The path exactly as written: a URL parser would resolve `..` before it is ever sent.
function rawStatus(origin: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = rawRequest(`${origin}/`, { path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject).end();
  });
}

test('SEC-04 only manifest names are served: separators, parents, NUL and strangers are 404', async () => {
  const name = byKind('node-program').name;
  const r = release.release;
  const bad: Array<[string, string]> = [
    [core.console_url, `/node-files/${r}/..%2fmanifest.json`],
    [core.console_url, `/node-files/${r}/..`],
    [core.console_url, `/node-files/${r}/%2e%2e`],
    [core.console_url, `/node-files/${r}/../${r}/${name}`],
    [core.console_url, `/node-files/${r}/a%2fb`],
    [core.console_url, `/node-files/${r}/a%5cb`],
    [core.console_url, `/node-files/${r}/${name}%00`],
    [core.console_url, `/node-files/${r}/%E0%A4%A`],
    [core.console_url, `/node-files/${r}/SHA256SUMS`],
    [core.console_url, `/node-files/other-release/${name}`],
    [core.console_url, `/node-files/${r}/sub/${name}`],
    [core.console_url, `/node-install/manifest.json`],
    [core.console_url, `/node-install/../manifest.json`],
    [core.release_url, `/releases/${r}/SHA256SUMS`],
    [core.release_url, `/releases/${r}/..%2fmanifest.json`],
    [core.release_url, `/releases/${r}/../../etc/passwd`],
    [core.release_url, `/releases/${r}/${name}/x`],
    [core.release_url, `/`],
  ];
  for (const [origin, path] of bad) assert.equal(await rawStatus(origin, path), 404, path);
  assert.equal(await rawStatus(core.console_url, `/node-files/${r}/${name}`), 200);
  const post = await request(nodeFile(name), { method: 'POST', body: '' });
  await post.body.dump();
  assert.equal(post.statusCode, 405);
});

test('request log: server, method, path, range, status and body bytes; never headers', async () => {
  await core.coreApi('DELETE', '/__fixture/requests');
  const program = byKind('node-program');
  await get(nodeFile(program.name), {
    range: 'bytes=0-99',
    authorization: 'Bearer secret-in-header',
  });
  await get(`${core.release_url}/releases/${release.release}/manifest.json`);
  const log = (await core.coreApi('GET', '/__fixture/requests')).body as object[];
  assert.deepEqual(log[0], {
    server: 'core',
    method: 'GET',
    path: `/node-files/${release.release}/${program.name}`,
    range: 'bytes=0-99',
    status: 206,
    body_bytes: 100,
  });
  assert.equal((log[1] as { server: string }).server, 'release');
  assert.doesNotMatch(JSON.stringify(log), /secret-in-header/);
});

test('release "none": without a manifest the specification names no release and node files 404', async () => {
  const empty = await mkdtemp(join(tmpdir(), 'oac-core-empty-'));
  const bare = await startCore(['--release-dir', empty]);
  try {
    const d = await bare.coreApi('GET', '/core/v1/sandbox/deployment');
    assert.equal((d.body as { specification: { release: string } }).specification.release, 'none');
    assert.equal((await get(`${bare.console_url}/node-files/none/manifest.json`)).status, 404);
    assert.equal((await get(`${bare.console_url}/node-install/oac-node.gz`)).status, 404);
    assert.equal((await get(`${bare.release_url}/releases/none/manifest.json`)).status, 404);
  } finally {
    await bare.stop();
    await rm(empty, { recursive: true, force: true });
  }
});
