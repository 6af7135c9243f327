// DL-04 (issue #13): the executable bundles scripts/undici-slim.cjs in undici's place. It must
// offer every name the product imports from undici, and behave as undici does: a direct request
// through an Agent, and https through a proxy's CONNECT tunnel with TLS verified (ProxyAgent
// needs the methods undici's index puts on every dispatcher). All on loopback.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type * as Undici from 'undici';
import { repoRoot } from '../helpers/executable.ts';
import {
  makeTestCertificate,
  startRecordingProxy,
  startTlsFront,
  type RecordingProxy,
  type TestCertificate,
  type TlsFront,
} from '../helpers/proxy.ts';

const slim = createRequire(import.meta.url)(join(repoRoot, 'scripts/undici-slim.cjs')) as Pick<
  typeof Undici,
  'Agent' | 'ProxyAgent' | 'request'
>;

let plain: Server;
let cert: TestCertificate;
let front: TlsFront;
let proxy: RecordingProxy;

before(async () => {
  plain = createServer((_req, res) => res.end('hello from the release'));
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  cert = await makeTestCertificate('release.test');
  front = await startTlsFront(cert, (plain.address() as AddressInfo).port);
  proxy = await startRecordingProxy({ names: ['release.test'] });
});
after(async () => {
  await proxy.close();
  await front.close();
  plain.close();
});

/** Every value (not type) the product's sources import from 'undici'. */
function importedNames(dir: string): Set<string> {
  const names = new Set<string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const m of text.matchAll(/import\s+\{([^}]*)\}\s+from\s+'undici'/g))
      for (const part of (m[1] ?? '').split(','))
        if (part.trim() !== '' && !part.trim().startsWith('type '))
          names.add(part.trim().split(/\s+as\s+/)[0] ?? '');
  }
  return names;
}

test('issue #13 the slim undici offers every name the product imports from undici', () => {
  const names = new Set([
    ...importedNames(join(repoRoot, 'src')),
    ...importedNames(join(repoRoot, 'installer')),
  ]);
  assert.ok(names.has('request') && names.has('Agent'), [...names].join(' '));
  for (const name of names)
    assert.notEqual(
      (slim as Record<string, unknown>)[name],
      undefined,
      `undici-slim lacks ${name}`,
    );
});

test('issue #13 DL-04 the slim undici: a direct request, and https through CONNECT, verified', async () => {
  const agent = new slim.Agent();
  const direct = await slim.request(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`, {
    dispatcher: agent,
  });
  assert.equal(await direct.body.text(), 'hello from the release');
  await agent.close();

  const tls = { ca: cert.cert, rejectUnauthorized: true };
  const tunnel = new slim.ProxyAgent({ uri: proxy.url, requestTls: tls, proxyTls: tls });
  const viaProxy = await slim.request(`https://release.test:${front.port}/`, {
    dispatcher: tunnel,
  });
  assert.equal(viaProxy.statusCode, 200);
  assert.equal(await viaProxy.body.text(), 'hello from the release');
  assert.deepEqual(
    proxy.records.map((r) => [r.method, r.target]),
    [['CONNECT', `release.test:${front.port}`]],
  );
  await tunnel.close();

  // Verification is on: a certificate no trusted CA signed is refused through the tunnel.
  const untrusting = new slim.ProxyAgent({
    uri: proxy.url,
    requestTls: { rejectUnauthorized: true },
  });
  await assert.rejects(
    slim.request(`https://release.test:${front.port}/`, { dispatcher: untrusting }),
  );
  await untrusting.close();
});
