// DL-04 on the wire: downloads through tinyproxy from Debian and through a recording proxy
// (test/helpers/proxy.ts), all on loopback. Loopback is always direct, so the proxied requests
// name test hosts (`console.test`, `release.test`) that only the proxies know: they map them to
// 127.0.0.1, and direct connections to them use a lookup that does the same. No DNS query and no
// other address is ever involved.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { isOacError } from '../../src/errors.ts';
import { createDispatcher, type DispatcherOptions } from '../../src/net/dispatcher.ts';
import { downloadFile } from '../../src/net/download.ts';
import type { ProxyEnv } from '../../src/net/proxy-env.ts';
import { makeReleaseDir, startCore, type SampleRelease, type TestCore } from '../helpers/core.ts';
import {
  loopbackLookup,
  makeTestCertificate,
  startRecordingProxy,
  startTinyproxy,
  startTlsFront,
  type RecordingProxy,
  type TestCertificate,
  type Tinyproxy,
  type TlsFront,
} from '../helpers/proxy.ts';

const NAMES = ['console.test', 'release.test'];
const TINY_USER = { username: 'oac-test', password: 'pass.word-1' };
// `@`, `:` and `%` in both parts: tinyproxy cannot check these, the recording proxy can.
const HARD_USER = { username: 'us@er:x', password: 'p:ss@w%rd' };
const HARD_URL_USERINFO = 'us%40er%3Ax:p%3Ass%40w%25rd';

let release: SampleRelease;
let core: TestCore;
let corePort: number;
let plain: RecordingProxy; // no credentials; tinyproxy's upstream too
let guarded: RecordingProxy; // wants HARD_USER
let tiny: Tinyproxy;
let cert: TestCertificate;
let tls: TlsFront;
let root: string; // every download of this file lands under it

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'oac-dl-proxy-'));
  release = await makeReleaseDir();
  core = await startCore(['--release-dir', release.dir]);
  corePort = Number(new URL(core.console_url).port);
  plain = await startRecordingProxy({ names: NAMES });
  guarded = await startRecordingProxy({ names: NAMES, credentials: HARD_USER });
  tiny = await startTinyproxy({ credentials: TINY_USER, upstreamPort: plain.port });
  cert = await makeTestCertificate('release.test');
  tls = await startTlsFront(cert, corePort); // https://release.test:<tls.port> is the console
});
afterEach(async () => {
  plain.records.length = 0;
  guarded.records.length = 0;
  await core.coreApi('DELETE', '/__fixture/faults');
  await core.coreApi('DELETE', '/__fixture/requests');
});
after(async () => {
  await tls?.close();
  await tiny?.stop();
  await guarded?.close();
  await plain?.close();
  await core?.stop();
  await release?.cleanup();
  await rm(root, { recursive: true, force: true });
});

const program = () => release.files.find((f) => f.kind === 'node-program')!;
const image = () => release.files.find((f) => f.kind === 'runtime-image')!;
const path = (name: string) => `/node-files/${release.release}/${name}`;
const httpConsole = (name: string) => `http://console.test:${corePort}${path(name)}`;
const httpsConsole = (name: string) => `https://release.test:${tls.port}${path(name)}`;

async function download(
  env: ProxyEnv,
  url: string,
  file = program(),
  extra: Omit<DispatcherOptions, 'env'> = {},
) {
  const work = await mkdtemp(join(root, 'd-'));
  const dispatcher = createDispatcher({ env, ...extra });
  const dest = join(work, file.name);
  try {
    const route = dispatcher.describeRoute(url);
    const outcome = await downloadFile({
      url,
      dest,
      size: file.data.length,
      sha256: file.sha256,
      dispatcher,
      retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
    });
    assert.deepEqual(await readFile(dest), file.data);
    return { outcome, route, dest };
  } finally {
    await dispatcher.close();
  }
}

async function coreLog(): Promise<
  Array<{ server: string; path: string; range: string | null; status: number }>
> {
  return (await core.coreApi('GET', '/__fixture/requests')).body as never;
}

const direct = { lookup: loopbackLookup(NAMES) };

test('DL-04 plain http through tinyproxy with credentials: a forwarded GET that tinyproxy logs', async () => {
  const proxy = `http://${TINY_USER.username}:${TINY_USER.password}@127.0.0.1:${tiny.port}`;
  const { outcome, route } = await download({ http_proxy: proxy }, httpConsole(program().name));
  assert.equal(outcome, 'downloaded');
  assert.equal(route, `via proxy http://***@127.0.0.1:${tiny.port}`);
  const log = await tiny.log();
  assert.match(log, new RegExp(`GET http://console\\.test:${corePort}${path(program().name)}`));
  assert.ok(!log.includes('pass.word-1'));
  // tinyproxy passed it on as a forwarded GET (its upstream is the recording proxy).
  assert.deepEqual(
    plain.records.map((r) => [r.method, r.target]),
    [['GET', httpConsole(program().name)]],
  );
  assert.deepEqual(
    (await coreLog()).map((e) => [e.path, e.status]),
    [[path(program().name), 200]],
  );
});

test('DL-04 wrong proxy credentials fail clearly, and the message never shows them (SEC-03)', async () => {
  const proxy = `http://${TINY_USER.username}:wrong.s3cret@127.0.0.1:${tiny.port}`;
  const error = await download({ HTTP_PROXY: proxy }, httpConsole(program().name)).then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(isOacError(error), String(error));
  // tinyproxy answers bad credentials with 401, not 407 (recipe pitfall 5).
  assert.equal(error.code, 'download_proxy_auth');
  assert.match(error.message, /HTTP 40[17]/);
  assert.match(error.hint ?? '', /user and password/);
  assert.match(
    error.message,
    new RegExp(`via proxy http://\\*\\*\\*@127\\.0\\.0\\.1:${tiny.port}`),
  );
  assert.ok(!`${error.message} ${error.hint}`.includes('s3cret'));
  assert.deepEqual(await coreLog(), []);
});

test('DL-04 URL-encoded credentials with @ and : reach the proxy decoded, on forwarded GET and CONNECT', async () => {
  const proxy = `http://${HARD_URL_USERINFO}@127.0.0.1:${guarded.port}`;
  const env = { http_proxy: proxy, https_proxy: proxy };
  await download(env, httpConsole(program().name));
  await download(env, httpsConsole(program().name), program(), { ca: cert.cert });
  const expected = `${HARD_USER.username}:${HARD_USER.password}`;
  assert.deepEqual(
    guarded.records.map((r) => [r.method, r.target, r.auth]),
    [
      ['GET', httpConsole(program().name), expected],
      ['CONNECT', `release.test:${tls.port}`, expected],
    ],
  );
});

test('DL-04 a proxy that wants credentials refuses a request without them (407), clearly', async () => {
  for (const url of [httpConsole(program().name), httpsConsole(program().name)]) {
    const error = await download(
      { http_proxy: guarded.url, https_proxy: guarded.url },
      url,
      program(),
      {
        ca: cert.cert,
      },
    ).then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
    assert.ok(isOacError(error), String(error));
    assert.equal(error.code, 'download_proxy_auth', error.message);
    assert.match(error.message, /407/, error.message);
  }
});

test('DL-04 HTTPS goes through CONNECT with TLS verified end to end', async () => {
  const url = httpsConsole(program().name);
  const { route } = await download({ https_proxy: plain.url }, url, program(), { ca: cert.cert });
  assert.equal(route, `via proxy http://127.0.0.1:${plain.port}`);
  assert.deepEqual(
    plain.records.map((r) => [r.method, r.target]),
    [['CONNECT', `release.test:${tls.port}`]],
  );
  // Without the test CA the same tunnel fails verification: TLS is never switched off.
  const error = await download({ https_proxy: plain.url }, url).then(
    () => assert.fail('expected a certificate failure'),
    (e: unknown) => e,
  );
  assert.ok(isOacError(error));
  assert.equal(error.code, 'download_tls', error.message);
  assert.match(error.message, /SELF_SIGNED/, error.message);
});

test('DL-04 a redirect from a proxied console to the release server on loopback leaves the proxy', async () => {
  // Routing is per request: the 302 points at 127.0.0.1, which is always direct.
  await download({ https_proxy: plain.url }, httpsConsole(image().name), image(), {
    ca: cert.cert,
  });
  assert.deepEqual(
    plain.records.map((r) => r.method),
    ['CONNECT'],
  );
  assert.deepEqual(
    (await coreLog()).map((e) => [e.server, e.status]),
    [
      ['core', 302],
      ['release', 200],
    ],
  );
});

test('DL-02 Range travels through the proxy: an interrupted https download resumes through CONNECT', async () => {
  const url = httpsConsole(program().name);
  await core.coreApi('PUT', '/__fixture/faults', {
    target: program().name,
    fault: { kind: 'drop', after_bytes: 100_000 },
    count: 1,
  });
  const work = await mkdtemp(join(root, 'd-'));
  const dispatcher = createDispatcher({ env: { https_proxy: plain.url }, ca: cert.cert });
  const o = {
    url,
    dest: join(work, program().name),
    size: program().data.length,
    sha256: program().sha256,
    dispatcher,
    retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
  };
  try {
    await assert.rejects(
      downloadFile(o),
      (e) => isOacError(e) && e.code === 'download_interrupted',
    );
    assert.equal(await downloadFile(o), 'resumed');
  } finally {
    await dispatcher.close();
  }
  assert.deepEqual(
    (await coreLog()).map((e) => [e.range, e.status]),
    [
      [null, 200],
      ['bytes=100000-', 206],
    ],
  );
});

test('DL-04 no_proxy sends listed hosts direct, in each of its forms', async () => {
  const cases: Array<[string, string]> = [
    ['console.test', httpConsole(program().name)],
    [' other.example , .test', httpConsole(program().name)],
    ['*.test', httpsConsole(program().name)],
    [`release.test:${tls.port}`, httpsConsole(program().name)],
    ['*', httpsConsole(program().name)],
  ];
  for (const [noProxy, url] of cases) {
    const env = { http_proxy: plain.url, https_proxy: plain.url, NO_PROXY: noProxy };
    // Direct https to a test name: the CA goes to `connect`, not `requestTls` (recipe pitfall 2).
    const { route } = await download(env, url, program(), { ...direct, ca: cert.cert });
    assert.match(route, /^direct \(no_proxy /, noProxy);
  }
  assert.deepEqual(plain.records, []);
  assert.equal((await coreLog()).length, cases.length);
});

test('DL-04 lowercase beats uppercase, and an EMPTY https_proxy beats a set HTTPS_PROXY', async () => {
  // undici's EnvHttpProxyAgent would send this https request through the http proxy.
  const empty = { https_proxy: '', HTTPS_PROXY: plain.url, http_proxy: plain.url };
  const { route } = await download(empty, httpsConsole(program().name), program(), {
    ...direct,
    ca: cert.cert,
  });
  assert.equal(route, 'direct (no proxy set)');
  assert.deepEqual(plain.records, []);

  // Both set: the lowercase proxy carries the request, the uppercase one sees nothing.
  const hard = `http://${HARD_URL_USERINFO}@127.0.0.1:${guarded.port}`;
  await download({ http_proxy: hard, HTTP_PROXY: plain.url }, httpConsole(program().name));
  assert.equal(guarded.records.length, 1);
  assert.deepEqual(plain.records, []);

  // An empty lowercase no_proxy hides NO_PROXY: the request is proxied.
  await download(
    { http_proxy: plain.url, no_proxy: '', NO_PROXY: 'console.test' },
    httpConsole(program().name),
  );
  assert.equal(plain.records.length, 1);
});

test('DL-04 loopback is always direct, with every proxy variable set and no no_proxy', async () => {
  const env = {
    http_proxy: plain.url,
    https_proxy: plain.url,
    HTTP_PROXY: plain.url,
    HTTPS_PROXY: plain.url,
  };
  for (const host of ['127.0.0.1', 'localhost']) {
    const { route } = await download(env, `http://${host}:${corePort}${path(program().name)}`);
    assert.equal(route, 'direct (loopback)');
  }
  assert.deepEqual(plain.records, []);
  assert.equal((await coreLog()).length, 2);
});
