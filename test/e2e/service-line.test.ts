// Issue #15 item 5, end to end: the pasted line run by a system service, as cloud-init's runcmd
// and provisioning agents run it: systemd gives the service no HOME. The line takes root's home
// from the user database and installs a connected, ready node (before, it ended at once with
// `sh: 1: HOME: parameter not set or null`, status 2).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listNodes } from './harness/core-nodes.ts';
import { withHostAndCore } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();

test('issue #15 the line run by a system service without HOME installs a ready node', async () => {
  const dir = await release.dir();
  await withHostAndCore(['--release-dir', dir], async (host, core) => {
    const { command, sha } = await issueToken(core);
    // The service's own environment: no HOME (systemd sets it only for a User=).
    const environ = await host.exec(['systemd-run', '--wait', '--pipe', '--quiet', 'env']);
    assert.doesNotMatch(environ.stdout, /^HOME=/m, 'a system service has no HOME');
    const run = await host.exec(['systemd-run', '--wait', '--pipe', '--quiet', '/bin/sh'], {
      stdin: `${command}\n`,
      timeoutMs: 600_000,
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    await host.shOk(`test -x /root/.oac/node-bootstrap/${sha}`);
    const nodes = await listNodes(core);
    assert.deepEqual(
      nodes.map((n) => [n.connected, n.provider_ready]),
      [[true, true]],
    );
  });
});
