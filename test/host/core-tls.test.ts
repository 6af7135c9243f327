// TRUST-01 groundwork (issue #14): the reference Core's --tls serves its API and console over
// HTTPS under a private CA it makes at start, and prints the pin of that CA: `sha256:<hex>` of
// its SubjectPublicKeyInfo, checked here against openssl's own computation and against the CA
// in the chain the server presents. A client that does not trust the CA is refused; one that
// trusts only it gets through. All on loopback; no trust store is touched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { connect, type PeerCertificate } from 'node:tls';
import { after, before, test } from 'node:test';
import { call, startCore, type TestCore } from '../helpers/core.ts';

let core: TestCore;
before(async () => {
  core = await startCore(['--tls']);
});
after(async () => {
  await core.stop();
});

test('issue #14 TRUST-01 --tls: Core is https, with the pin of its own CA in the JSON line', async () => {
  assert.match(core.core_url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.match(core.core_pin ?? '', /^sha256:[0-9a-f]{64}$/);
  // openssl's own SubjectPublicKeyInfo of the printed CA, hashed by sha256sum's way.
  const pubkey = execFileSync('openssl', ['x509', '-pubkey', '-noout'], { input: core.ca_pem });
  const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'DER'], { input: pubkey });
  assert.equal(core.core_pin, `sha256:${createHash('sha256').update(der).digest('hex')}`);
});

test('issue #14 TRUST-01 --tls: the served chain ends in that CA; only a client that trusts it gets through', async () => {
  const port = Number(new URL(core.core_url).port);
  const chain = await new Promise<PeerCertificate & { issuerCertificate?: PeerCertificate }>(
    (resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca: core.ca_pem }, () => {
        resolve(socket.getPeerCertificate(true));
        socket.end();
      });
      socket.once('error', reject);
    },
  );
  const issuer = chain.issuerCertificate;
  assert.ok(issuer?.raw !== undefined && issuer.raw !== chain.raw, 'the server presents its CA');
  const spki = new X509Certificate(issuer.raw).publicKey.export({ type: 'spki', format: 'der' });
  assert.equal(core.core_pin, `sha256:${createHash('sha256').update(spki).digest('hex')}`);

  const trusted = await call('GET', `${core.core_url}/api/v1/sandbox-node/configuration`, {
    ca: core.ca_pem,
  });
  assert.equal(trusted.status, 401, 'a TLS answer from Core: no credential given');
  // Without the CA (Node's own roots, not the host's store): refused before any request.
  await assert.rejects(call('GET', `${core.core_url}/api/v1/sandbox-node/configuration`));
});
