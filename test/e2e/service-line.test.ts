// Issue #15 item 5, end to end: the pasted line run by a system service, as cloud-init's runcmd
// and provisioning agents run it: systemd gives the service no HOME. The line takes root's home
// from the user database and installs a connected, ready node (before, it ended at once with
// `sh: 1: HOME: parameter not set or null`, status 2).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testRelease } from './helpers/release.ts';
import { withHostAndCore } from './helpers/with-host.ts';

const release = testRelease();

test('issue #15 the line run by a system service without HOME installs a ready node', async () => {
  const dir = await release.dir();
  await withHostAndCore(['--release-dir', dir], async (host, core) => {
    const issued = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
    const { command } = issued.body as { command: string };
    // The service's own environment: no HOME (systemd sets it only for a User=).
    const environ = await host.exec(['systemd-run', '--wait', '--pipe', '--quiet', 'env']);
    assert.doesNotMatch(environ.stdout, /^HOME=/m, 'a system service has no HOME');
    const run = await host.exec(['systemd-run', '--wait', '--pipe', '--quiet', '/bin/sh'], {
      stdin: `${command}\n`,
      timeoutMs: 600_000,
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const sha = /s='([0-9a-f]{64})'/.exec(command)?.[1] ?? '';
    await host.shOk(`test -x /root/.oac/node-bootstrap/${sha}`);
    const nodes = (await core.coreApi('GET', '/core/v1/sandbox/nodes')).body as {
      nodes: Array<{ connected: boolean; provider_ready: boolean }>;
    };
    assert.deepEqual(
      nodes.nodes.map((n) => [n.connected, n.provider_ready]),
      [[true, true]],
    );
  });
});
