// The earlier guide's troubleshooting: "a registered node that never connected usually cannot
// reach Core at its public URL, or the /api/v1 WebSocket does not pass the reverse proxy". Here
// Core drops every WebSocket upgrade (as a proxy that does not pass them would): the installer
// ends its wait with that line, naming the WebSocket's address and the node's log (OPS-02).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withHostAndCore } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();

test('OPS-02 ENR-04 registered but never connected: the hint names the WebSocket and the public URL', async () => {
  await withHostAndCore(['--release-dir', await release.dir()], async (host, core) => {
    const armed = await core.coreApi('PUT', '/__fixture/faults', {
      target: '/api/v1/sandbox-node/connect',
      fault: { kind: 'lose_response' },
    });
    assert.equal(armed.status, 204, JSON.stringify(armed.body));
    const { command, token, installationId } = await issueToken(core);
    // The installer the line downloads, run by hand for a short --timeout.
    const url = /"(http:\/\/[^"]+\/node-install\/oac-node\.gz)"/.exec(command)?.[1] ?? '';
    await host.shOk(`curl -sSf '${url}' | gzip -d >/root/oac-node && chmod 0700 /root/oac-node`);
    const args = ['install', '--core-url', core.coreUrl, '--installation-id', installationId];
    const run = await host.exec(['/root/oac-node', ...args, '--timeout', '8'], {
      stdin: `${token}\n`,
      timeoutMs: 300_000,
    });
    assert.equal(run.status, 1, `${run.stdout}\n${run.stderr}`);
    assert.match(
      run.stderr,
      /^oac-node: The node registered but did not connect to Core within 8 s$/m,
    );
    const ws = `ws://127.0.0.1:${new URL(core.coreUrl).port}/api/v1/sandbox-node/connect`;
    assert.ok(run.stderr.includes(`does not pass the WebSocket at ${ws}`), run.stderr);
    assert.ok(run.stderr.includes(`cannot reach Core at ${core.coreUrl}`), run.stderr);
    // Run as root without sudo: the log command is the one a root shell types.
    assert.match(
      run.stderr,
      new RegExp(`Logs: journalctl -u oac-node-${installationId}\\.service`),
    );
    // While it waited, a pipe saw what Core said.
    assert.match(
      run.stdout,
      /^ {2}Waiting for Core \(\d+ s\): Core has not seen the node connect yet$/m,
    );
  });
});
