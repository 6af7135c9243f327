// Issue #12 item 9, DL-04, HOST-06, UNI-01, SEC-03: a host whose only route to Core, its console
// and the release server is tinyproxy inside it, with a user and password. Core is reached at
// https://core.test and the release at https://release.test:8443 (a TLS terminator in the host's
// network namespace, its certificate added to the host's trust store as an operator adds a
// private CA); a firewall rule lets only tinyproxy's account connect there. The pasted line
// installs with the proxy exported, reruns unchanged, and uninstall — run without any proxy
// variable — asks Core through the proxy settings the install saved. The password appears in no
// output, log, record or journal (only in the root-only env file the service reads).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { makeTestCertificate } from '../helpers/proxy.ts';
import { listNodes, removeNodeInCore } from './harness/core-nodes.ts';
import { hostWithCore } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import { spawnInHostNet } from './helpers/core-in-host.ts';
import { testRelease } from './helpers/release.ts';
import { waitInHost } from './harness/wait.ts';

const PASSWORD = 's3cret-pass.e2e'; // tinyproxy's BasicAuth takes [-a-z0-9._] only
const PROXY = `http://op:${PASSWORD}@127.0.0.1:3128`;
const release = testRelease();
let terminator: ChildProcess | undefined;
let certDir: string;

// After hooks run in the order registered: the terminator ends before the Core and the host,
// the certificate's directory goes after them.
after(() => {
  terminator?.kill('SIGTERM');
});
const pair = hostWithCore(async () => [
  '--release-dir',
  await release.dir(),
  '--public-url',
  'https://core.test',
  '--console-public-url',
  'https://core.test',
  '--release-public-url',
  'https://release.test:8443',
]);
after(() => {
  if (certDir !== undefined) rmSync(certDir, { recursive: true, force: true });
});

before(async () => {
  const { host, core } = await pair.boot();
  const address = host.address;
  const cert = await makeTestCertificate('core.test', ['release.test']);
  certDir = mkdtempSync(join(tmpdir(), 'oac-e2e-tls-'));
  writeFileSync(join(certDir, 'cert.pem'), cert.cert);
  writeFileSync(join(certDir, 'key.pem'), cert.key, { mode: 0o600 });
  terminator = await startTerminator(
    `${address}:443=${new URL(core.coreUrl).port}`,
    `${address}:8443=${new URL(core.releaseUrl).port}`,
  );
  await host.exec(['sh', '-c', 'cat > /usr/local/share/ca-certificates/oac-e2e.crt'], {
    stdin: cert.cert,
  });
  await host.shOk(
    [
      'update-ca-certificates >/dev/null',
      `echo '${address} core.test release.test' >> /etc/hosts`,
      // The only way out to core.test and release.test is tinyproxy's account.
      `iptables -A OUTPUT -p tcp -d ${address} -m multiport --dports 443,8443 -m owner ! --uid-owner tinyproxy -j REJECT --reject-with tcp-reset`,
      'install -d -o tinyproxy -g tinyproxy /var/log/oac-e2e-proxy',
    ].join(' && '),
  );
  await host.exec(['sh', '-c', 'cat > /etc/tinyproxy/e2e.conf'], {
    stdin: [
      'User tinyproxy',
      'Group tinyproxy',
      'Port 3128',
      'Listen 127.0.0.1',
      'Timeout 600',
      'LogFile "/var/log/oac-e2e-proxy/tinyproxy.log"',
      'LogLevel Connect',
      'MaxClients 50',
      'Allow 127.0.0.1',
      `BasicAuth op ${PASSWORD}`,
      'ConnectPort 443',
      'ConnectPort 8443',
      '',
    ].join('\n'),
  });
  await host.shOk(
    'systemd-run --unit=oac-e2e-proxy --quiet tinyproxy -d -c /etc/tinyproxy/e2e.conf',
  );
  // Until it listens (no fixed sleep, issue #28), and still runs.
  await waitInHost(
    host,
    'tinyproxy to listen on 127.0.0.1:3128',
    "ss -Hltn 'sport = :3128' | grep -q .",
    {
      timeoutMs: 20_000,
      intervalMs: 100,
      explain: 'systemctl status --no-pager oac-e2e-proxy',
    },
  );
  await host.shOk('systemctl is-active --quiet oac-e2e-proxy');
});

/** The TLS terminator in the host's network namespace (a process of this machine, by PID). */
function startTerminator(...routes: string[]): Promise<ChildProcess> {
  const child = spawnInHostNet(pair.host, 'test/e2e/helpers/tls-terminator.ts', [
    join(certDir, 'cert.pem'),
    join(certDir, 'key.pem'),
    ...routes,
  ]);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no terminator: ${stderr}`)), 20_000);
    child.stdout?.on('data', (c: Buffer) => {
      if (!c.toString().includes('ready')) return;
      clearTimeout(timer);
      resolve(child);
    });
  });
}

const proxyLog = () => pair.host.shOk('cat /var/log/oac-e2e-proxy/tinyproxy.log');

test('DL-04 HOST-06 UNI-01 SEC-03 through tinyproxy only: install, rerun and uninstall succeed; the password shows nowhere', async () => {
  const { host, core } = pair;
  // The firewall holds: without the proxy, core.test cannot be reached.
  const direct = await host.sh('curl -sS --max-time 5 https://core.test/node-install/SHA256SUMS');
  assert.notEqual(direct.status, 0, 'core.test is unreachable without the proxy');

  const { command, installationId, uninstall } = await issueToken(core);
  assert.match(command, /"https:\/\/core\.test\/node-install\/oac-node\.gz"/);
  const withProxy = `export https_proxy='${PROXY}'\n${command}\n`;

  const install = await host.exec(['sh'], { stdin: withProxy, timeoutMs: 600_000 });
  const logs = (await host.sh('journalctl -u "oac-node-*" --no-pager | tail -30')).stdout;
  assert.equal(install.status, 0, `${install.stdout}\n${install.stderr}\n${logs}`);
  assert.match(install.stdout, /is connected and ready/);
  const routed = await proxyLog();
  assert.match(routed, /CONNECT core\.test:443/, 'Core and the console through the proxy');
  assert.match(routed, /CONNECT release\.test:8443/, 'the release server through the proxy');

  const rerun = await host.exec(['sh'], { stdin: withProxy, timeoutMs: 600_000 });
  assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
  assert.doesNotMatch(rerun.stdout, /\b(created|updated|replaced|removed)\b/, rerun.stdout);

  // SEC-03: the password is in the root-only env file the service reads, and nowhere else.
  assert.match(
    await host.shOk(`stat -c '%U %a' /etc/oac-node/${installationId}.env`),
    /^root 600$/m,
  );
  const everywhere = await host.sh(
    `{ journalctl --no-pager; cat /etc/oac-node/${installationId}.json; grep -r . /var/lib/oac-node 2>/dev/null; } | grep -c -F '${PASSWORD}'`,
  );
  assert.equal(everywhere.stdout.trim(), '0', 'the password is in no log, record or node file');
  // Nor a plain digest of the file that holds it (issue #27.5: a weak password could be guessed
  // from one offline): the journal keeps a keyed one.
  const envDigest = (await host.shOk(`sha256sum /etc/oac-node/${installationId}.env`)).split(
    ' ',
  )[0];
  const record = await host.shOk(`cat /etc/oac-node/${installationId}.json`);
  assert.ok(envDigest && !record.includes(envDigest), 'no plain digest of the env file recorded');
  assert.match(record, /hmac-sha256:[0-9a-f]{64}/);
  for (const out of [install, rerun]) assert.ok(!`${out.stdout}${out.stderr}`.includes(PASSWORD));

  // Remove the node in Core, then uninstall with no proxy variable at all: it asks Core
  // through the saved settings (UNI-01), rather than saying Core is gone.
  const [listed] = await listNodes(core);
  await removeNodeInCore(core, listed?.node_id ?? '');
  const before = (await proxyLog()).split('\n').length;
  const removed = await host.exec(uninstall, { stdin: '' });
  assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
  assert.ok(!`${removed.stdout}${removed.stderr}`.includes(PASSWORD));
  assert.ok((await proxyLog()).split('\n').length > before, 'uninstall asked Core via the proxy');
  const left = await host.sh(`ls /etc/oac-node/${installationId}.* 2>&1`);
  assert.notEqual(left.status, 0, 'the records and the proxy settings are gone');
});
