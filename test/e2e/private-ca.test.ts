// Issue #14 (a), TRUST-01 end to end: the reference Core with --tls serves its API and console
// under a private CA of its own, inside the throwaway host's network namespace. The pasted line
// carries the pin of that CA; the host's trust store never learns the CA. A wrong pin ends
// before the token leaves the installer (Core's request log shows no API request at all, and the
// token is still unused); the pinned line installs a node that connects and becomes ready (the
// service trusts the recorded pin), reruns with nothing to change, shows the pin in status, and
// uninstalls after Core removed the node (uninstall asks Core under the same pin).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect } from 'node:tls';
import { pinOf } from '../../src/net/core-pin.ts';
import { listNodes } from './harness/core-nodes.ts';
import { withHostAndCore, type CoreInHost } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import type { E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { removeAndUninstall } from './helpers/remove-node.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();

// The host's trust store as curl, OpenSSL and the installer read it.
const TRUST_STORE =
  'find /etc/ssl/certs /usr/local/share/ca-certificates /usr/share/ca-certificates -xdev -printf "%p %l\\n" 2>/dev/null | sort | sha256sum; sha256sum /etc/ssl/certs/ca-certificates.crt';

interface Logged {
  method: string;
  path: string;
}

async function apiRequests(core: CoreInHost): Promise<Logged[]> {
  const log = (await core.coreApi('GET', '/__fixture/requests')).body as Logged[];
  return log.filter((r) => r.path.startsWith('/api/'));
}

/** What status says of the pin and of Core. */
async function pinShown(host: E2eHost, installer: string, installationId: string) {
  const status = await host.exec([
    installer,
    'status',
    '--installation-id',
    installationId,
    '--json',
  ]);
  assert.equal(status.status, 0, `${status.stdout}\n${status.stderr}`);
  const shown = JSON.parse(status.stdout) as { core_pin: string; core: { state: string } };
  return [shown.core_pin, shown.core.state];
}

/** The pin of the server certificate's own key, as the test sees the Core from outside. */
async function serverKeyPin(core: CoreInHost): Promise<string> {
  const { hostname, port } = new URL(core.outsideUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: hostname, port: Number(port), rejectUnauthorized: false },
      () => {
        const leaf = socket.getPeerX509Certificate();
        socket.destroy();
        if (leaf === undefined) reject(new Error('no certificate'));
        else resolve(pinOf(leaf));
      },
    );
    socket.once('error', reject);
  });
}

async function paste(host: E2eHost, command: string) {
  return host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
}

test('TRUST-01 issue #14 (a): a private-CA Core: the pinned line installs, reruns, shows and uninstalls; a wrong pin sends nothing', async () => {
  const dir = await release.dir();
  await withHostAndCore(['--release-dir', dir, '--tls'], async (host, core) => {
    const pin = core.corePin ?? '';
    assert.match(pin, /^sha256:[0-9a-f]{64}$/);
    const trustBefore = await host.shOk(TRUST_STORE);
    const pristine = await host.snapshot();

    const { token, command, installationId, uninstall } = await issueToken(core);
    assert.equal(command.split(`--core-pin "${pin}"`).length, 2, 'the line carries the pin');

    // A wrong pin: the installer refuses before its first request to Core.
    const wrongPin = `sha256:${'0'.repeat(64)}`;
    const wrong = await paste(host, command.replace(pin, wrongPin));
    assert.equal(wrong.status, 1, `${wrong.stdout}\n${wrong.stderr}`);
    assert.match(
      wrong.stderr,
      new RegExp(`did not present the key the pin ${wrongPin} names; nothing was sent to it`),
    );
    assert.deepEqual(await apiRequests(core), [], 'no request reached the API, so no token');
    assert.deepEqual(diffSnapshots(pristine, await host.snapshot()), [], 'the host is unchanged');

    // Without a pin the host's own store decides, and it does not know this CA.
    const installer = uninstall[3] ?? '';
    const unpinned = await host.exec(
      [installer, 'install', '--core-url', core.coreUrl, '--installation-id', installationId],
      { stdin: `${token}\n` },
    );
    assert.equal(unpinned.status, 1, unpinned.stdout);
    assert.match(unpinned.stderr, /TLS|certificate/i);
    assert.deepEqual(await apiRequests(core), [], 'an unverified Core got nothing either');

    // The pinned line: the same token, unused so far.
    const installed = await paste(host, command);
    const logs =
      installed.status === 0
        ? ''
        : (await host.sh('journalctl -u "oac-node-*" --no-pager | tail -40')).stdout;
    assert.equal(installed.status, 0, `${installed.stdout}\n${installed.stderr}\n${logs}`);
    const listed = await listNodes(core);
    assert.deepEqual(
      listed.map((n) => [n.connected, n.provider_ready]),
      [[true, true]],
      'the service reached Core under the pin',
    );

    // A rerun of the same line: nothing to change, the pin kept.
    const rerun = await paste(host, command);
    assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
    const dry = await host.exec(
      [
        installer,
        'install',
        '--core-url',
        core.coreUrl,
        '--core-pin',
        pin,
        '--installation-id',
        installationId,
        '--dry-run',
      ],
      { stdin: '' },
    );
    assert.equal(dry.status, 0, `DECL: nothing would change\n${dry.stdout}\n${dry.stderr}`);

    assert.deepEqual(await pinShown(host, installer, installationId), [pin, 'ready']);
    const text = await host.exec([installer, 'status', '--installation-id', installationId]);
    assert.match(text.stdout, new RegExp(`its key pinned to ${pin}\\)$`, 'm'));

    // An older line without the pin (from the shell's history) keeps the node's recorded pin:
    // the kept installer is reused, so nothing is downloaded either.
    const unpinnedLine = command
      .replace(` --core-pin "${pin}"`, '')
      .replace(' --insecure --max-filesize 536870912', '');
    assert.ok(!unpinnedLine.includes('--core-pin') && !unpinnedLine.includes('--insecure'));
    const older = await paste(host, unpinnedLine);
    assert.equal(older.status, 0, `${older.stdout}\n${older.stderr}`);
    assert.deepEqual(await pinShown(host, installer, installationId), [pin, 'ready']);

    // Another key of the same chain (the server's own): the plan says so, the run records it
    // and restarts the service, which reconnects under it.
    const leafPin = await serverKeyPin(core);
    const pinArgs = [
      '--core-url',
      core.coreUrl,
      '--core-pin',
      leafPin,
      '--installation-id',
      installationId,
    ];
    const plan = await host.exec([installer, 'install', ...pinArgs, '--dry-run'], { stdin: '' });
    assert.equal(plan.status, 2, `${plan.stdout}\n${plan.stderr}`);
    assert.ok(
      plan.stdout.includes(`trust the key ${leafPin} for Core (was the key ${pin})`),
      plan.stdout,
    );
    const repinned = await host.exec([installer, 'install', ...pinArgs], {
      stdin: '',
      timeoutMs: 600_000,
    });
    assert.equal(repinned.status, 0, `${repinned.stdout}\n${repinned.stderr}`);
    assert.match(repinned.stdout, /restarted/);
    assert.deepEqual(await pinShown(host, installer, installationId), [leafPin, 'ready']);

    // Uninstall asks Core, under the recorded pin, whether the node is gone.
    const still = await host.exec(uninstall);
    assert.equal(still.status, 1, still.stdout);
    assert.match(still.stderr, /^oac-node: Core still lists this node$/m);
    const nodeId = listed[0]?.node_id ?? '';
    await removeAndUninstall(host, core, { nodeId, installationId, uninstall }, pristine);
    assert.equal(await host.shOk(TRUST_STORE), trustBefore, "the host's trust store is untouched");
  });
});
