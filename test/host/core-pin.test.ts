// TRUST-01 on the wire: a pinned origin trusts exactly the pinned key, directly and through a
// CONNECT proxy, and a wrong pin, an impostor that presents the genuine CA beside its own
// certificate, or a certificate for another name ends before any request is written (the
// servers count requests, and the Authorization header never arrives). Private CAs made by
// openssl (fixtures/core/tls.ts); nothing is added to any trust store; all on loopback, test
// names resolved to 127.0.0.1 without DNS.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { makeCoreTls, spkiPin, type CoreTls } from '../../fixtures/core/tls.ts';
import { UsageError, isOacError } from '../../src/errors.ts';
import { parseCorePin, pinOrigin, processPins } from '../../src/net/core-pin.ts';
import { createDispatcher } from '../../src/net/dispatcher.ts';
import { CoreClient } from '../../src/net/core-client.ts';
import type { ProxyEnv } from '../../src/net/proxy-env.ts';
import { loopbackLookup, startRecordingProxy, type RecordingProxy } from '../helpers/proxy.ts';

interface Counted {
  server: Server;
  port: number;
  requests: Array<string | undefined>; // the Authorization header of each request that arrived
}

async function serve(key: string, cert: string): Promise<Counted> {
  const requests: Array<string | undefined> = [];
  const server = createServer({ key, cert }, (req, res) => {
    requests.push(req.headers.authorization);
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

const NAMES = ['core.test', 'other.test'];
let good: CoreTls;
let core: Counted; // the genuine Core: server certificate for core.test under good's CA
let impostor: Counted; // its own certificate for core.test, and good's CA certificate beside it
let proxy: RecordingProxy;
let leafOnly: Counted; // the genuine certificate, sent without its CA (as many servers do)

before(async () => {
  good = makeCoreTls(['localhost', 'core.test']);
  const other = makeCoreTls(['localhost', 'core.test']);
  core = await serve(good.key, good.cert);
  const otherLeaf = other.cert.slice(0, other.cert.indexOf(other.ca));
  impostor = await serve(other.key, `${otherLeaf}${good.ca}`);
  proxy = await startRecordingProxy({ names: NAMES });
  leafOnly = await serve(good.key, leafOf(good));
});
after(async () => {
  for (const s of [core, impostor, leafOnly]) s.server.closeAllConnections();
  await Promise.all([core, impostor, leafOnly].map((s) => new Promise((r) => s.server.close(r))));
  await proxy.close();
});

function leafOf(tls: CoreTls): string {
  return tls.cert.slice(0, tls.cert.indexOf(tls.ca));
}

async function get(url: string, pin: string | undefined, env: ProxyEnv = {}, ca?: string) {
  const origin = new URL(url).origin;
  const dispatcher = createDispatcher({
    env,
    lookup: loopbackLookup(NAMES),
    pins: new Map(pin === undefined ? [] : [[origin, pin]]),
    ...(ca === undefined ? {} : { ca }),
  });
  try {
    const res = await request(url, {
      dispatcher,
      headers: { authorization: 'Bearer secret-token-0123456789' },
    });
    return { status: res.statusCode, body: await res.body.text() };
  } finally {
    await dispatcher.close();
  }
}

test('TRUST-01 a CA pin reaches a Core under a private CA that the host does not trust', async () => {
  const before = core.requests.length;
  const res = await get(`https://core.test:${core.port}/x`, good.pin);
  assert.equal(res.status, 200);
  assert.deepEqual(core.requests.slice(before), ['Bearer secret-token-0123456789']);
  // The same origin without a pin: the host's store, which does not hold this CA.
  await assert.rejects(get(`https://core.test:${core.port}/x`, undefined), /CERT|certificate/i);
  assert.equal(core.requests.length, before + 1, 'the unpinned try sent nothing');
});

test('TRUST-01 issue #25 a private-CA Core without a pin: a line naming the origin and the certificate, a hint naming --core-pin, and no retries', async () => {
  const dispatcher = createDispatcher({ env: {}, lookup: loopbackLookup(NAMES), pins: new Map() });
  const before = core.requests.length;
  let connections = 0;
  const counted = () => (connections += 1);
  core.server.on('connection', counted);
  try {
    const client = new CoreClient({ coreUrl: `https://core.test:${core.port}`, dispatcher });
    const error = await client
      .readConfiguration({ kind: 'token', token: 'tok-0123456789abcdef' })
      .then(() => assert.fail('the untrusted certificate was accepted'))
      .catch((e: unknown) => e);
    assert.ok(isOacError(error), String(error));
    assert.equal(error.code, 'core_certificate_untrusted');
    assert.match(
      error.message,
      new RegExp(
        `^Core's certificate at https://core.test:${core.port} is not trusted by this host: TLS: [A-Z_]+`,
      ),
    );
    assert.match(error.hint ?? '', /--core-pin sha256:.*docs\/private-ca\.md/);
    // A retry would get the same answer: one connection only.
    assert.equal(connections, 1, 'not retried');
    assert.equal(core.requests.length, before, 'no request reached Core');
  } finally {
    core.server.off('connection', counted);
    await dispatcher.close();
  }
});

test("TRUST-01 the server's own key can be pinned too (a partial chain)", async () => {
  const res = await get(`https://core.test:${core.port}/x`, spkiPin(leafOf(good)));
  assert.equal(res.status, 200);
});

test('TRUST-01 a wrong pin ends before any request, in one line that names the origin and the pin', async () => {
  const before = core.requests.length;
  const wrong = makeCoreTls().pin;
  await assert.rejects(get(`https://core.test:${core.port}/x`, wrong), (error: unknown) => {
    assert.ok(isOacError(error), String(error));
    assert.equal(error.code, 'core_pin_mismatch');
    assert.ok(error.message.includes(`https://core.test:${core.port}`), error.message);
    assert.ok(error.message.includes(wrong), error.message);
    assert.ok(!error.message.includes('\n'));
    return true;
  });
  assert.equal(core.requests.length, before, 'nothing reached Core');
});

test('TRUST-01 an impostor presenting the genuine CA beside its own certificate gets no request', async () => {
  // Refused at discovery (the CA certificate sent beside the chain is not in the chain that its
  // certificate names), or at the verified handshake if it were: either way before any request.
  await assert.rejects(get(`https://core.test:${impostor.port}/x`, good.pin), (error: unknown) => {
    const code = (error as { code?: string }).code;
    assert.ok(
      code === 'core_pin_mismatch' || /CERT|SIGNATURE|ISSUER/.test(code ?? ''),
      String(code),
    );
    return true;
  });
  assert.deepEqual(impostor.requests, [], 'the token never reached the impostor');
});

test('TRUST-01 the pinned key does not excuse a certificate for another name', async () => {
  const before = core.requests.length;
  await assert.rejects(
    get(`https://other.test:${core.port}/x`, good.pin),
    (error: unknown) => (error as { code?: string }).code === 'ERR_TLS_CERT_ALTNAME_INVALID',
  );
  assert.equal(core.requests.length, before);
});

test('TRUST-01 DL-04 a pinned origin behind a proxy: both handshakes ride CONNECT tunnels', async () => {
  const before = proxy.records.length;
  const res = await get(`https://core.test:${core.port}/x`, good.pin, { https_proxy: proxy.url });
  assert.equal(res.status, 200);
  const connects = proxy.records.slice(before).filter((r) => r.method === 'CONNECT');
  assert.deepEqual(
    connects.map((r) => r.target),
    [`core.test:${core.port}`, `core.test:${core.port}`],
    'discovery and the connection itself',
  );
  const wrong = makeCoreTls().pin;
  const seen = core.requests.length;
  await assert.rejects(
    get(`https://core.test:${core.port}/x`, wrong, { https_proxy: proxy.url }),
    (error: unknown) => isOacError(error) && error.code === 'core_pin_mismatch',
  );
  assert.equal(core.requests.length, seen);
});

test('TRUST-01 a wrong pin is refused even where the trust store would accept the server', async () => {
  const before = core.requests.length;
  const wrong = makeCoreTls().pin;
  // `ca` stands in for a host store that trusts Core's CA: the pin still decides alone.
  await assert.rejects(
    get(`https://core.test:${core.port}/x`, wrong, {}, good.ca),
    (error: unknown) => isOacError(error) && error.code === 'core_pin_mismatch',
  );
  assert.equal(core.requests.length, before);
  assert.equal((await get(`https://core.test:${core.port}/x`, undefined, {}, good.ca)).status, 200);
});

test('TRUST-01 a server that sends no CA certificate: the refusal lists the keys it did present', async () => {
  await assert.rejects(get(`https://core.test:${leafOnly.port}/x`, good.pin), (error: unknown) => {
    assert.ok(isOacError(error) && error.code === 'core_pin_mismatch', String(error));
    assert.deepEqual(error.details, [`server certificate: ${spkiPin(leafOf(good))}`]);
    assert.match(error.hint ?? '', /a certificate the server sends/);
    return true;
  });
  assert.deepEqual(leafOnly.requests, []);
  // Its own key is presented, so pinning that works.
  const res = await get(`https://core.test:${leafOnly.port}/x`, spkiPin(leafOf(good)));
  assert.equal(res.status, 200);
});

test('TRUST-01 pins are kept by origin: a default port and upper case name the same origin', () => {
  pinOrigin('https://CORE.test:443/some/path', good.pin);
  assert.equal(processPins().get('https://core.test'), good.pin);
  pinOrigin('https://core.test', null);
  assert.equal(processPins().has('https://core.test'), false);
});

test('TRUST-01 --core-pin: malformed, or for a plain-http Core, is one usage line', () => {
  assert.throws(() => parseCorePin('sha256:12', 'https://core.test'), UsageError);
  assert.throws(() => parseCorePin(good.pin, 'http://127.0.0.1:8080'), /https Core URL/);
  assert.equal(parseCorePin(good.pin, 'https://core.test'), good.pin);
});
