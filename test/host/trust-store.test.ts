// SEC-01: the executable trusts the host's certificate authorities, the bundle curl in the
// pasted line uses too. An operator who added a private CA to the host (update-ca-certificates)
// must not see the line download the installer and the installer then refuse Core. The bundle
// is replaced only in a private mount namespace (unshare -m): this machine's /etc is untouched.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { requireExecutable } from '../helpers/executable.ts';
import { makeTestCertificate, startTlsFront, type TlsFront } from '../helpers/proxy.ts';

const BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const sha = createHash('sha256').update('installer').digest('hex');
let scratch: string;
let plain: Server;
let front: TlsFront;
let privateCa: string;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'oac-trust-'));
  // The console's one route this test needs, behind TLS with a certificate no public CA signed.
  plain = createServer((req, res) => {
    if (req.url === '/node-install/SHA256SUMS') res.end(`${sha}  oac-node\n`);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  const cert = await makeTestCertificate('localhost');
  privateCa = cert.cert;
  front = await startTlsFront(cert, (plain.address() as AddressInfo).port);
});
after(async () => {
  await front.close();
  plain.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** `oac-node command` against the TLS console, with `bundle` mounted over the host's bundle. */
async function commandWithBundle(
  bundle: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const path = join(scratch, `bundle-${createHash('sha256').update(bundle).digest('hex')}.crt`);
  writeFileSync(path, bundle);
  const exe = requireExecutable();
  const url = `https://localhost:${front.port}`;
  const script = `mount --bind "$1" ${BUNDLE} && exec "$2" command --core-url "$3" --installation-id 3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f`;
  // Asynchronous: the TLS front runs in this process.
  const child = spawn('unshare', ['-m', 'sh', '-c', script, 'sh', path, exe, url], { env: {} });
  child.stdin.end('EXAMPLE-enrollment-token-0123456789\n');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { status, stdout, stderr };
}

test("SEC-01 a private CA in the host's bundle is trusted, as curl in the line trusts it", async () => {
  const system = readFileSync(BUNDLE, 'utf8');
  const run = await commandWithBundle(`${system}\n${privateCa}`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`s="${sha}"`), 'the line carries the console checksum');
});

test('SEC-01 without it the certificate is refused in one line (verification stays on)', async () => {
  const run = await commandWithBundle(readFileSync(BUNDLE, 'utf8'));
  assert.notEqual(run.status, 0);
  assert.match(
    run.stderr,
    /^oac-node: Cannot reach Core at https:\/\/localhost:\d+: TLS: DEPTH_ZERO_SELF_SIGNED_CERT$/m,
  );
});
