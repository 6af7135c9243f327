// Issue #42: the line works in every shell an operator pastes it into. In a real host, the line
// from Core is pasted (read on standard input, from a file: fish takes a socket for a directory)
// into bash, dash, zsh (without its rc files, and with no_clobber, nounset and ksh_arrays), mksh,
// busybox's ash, fish and tcsh as root: each installs a ready node (after the one before was
// removed with `uninstall --force`, which keeps the Runtime image) and reruns it unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listNodes } from './harness/core-nodes.ts';
import { issueToken } from './harness/enroll.ts';
import type { E2eHost } from './harness/host.ts';
import { withInstalledHost } from './harness/installed.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { waitUntil } from './harness/wait.ts';
import { testRelease } from './helpers/release.ts';
import { PASTE_SHELLS } from '../helpers/paste-shells.ts';

const release = testRelease();

/** The line pasted into `shell` as root: the shell reads it on its standard input. */
async function paste(host: E2eHost, shell: string, line: string) {
  await host.exec(['sh', '-c', 'cat >/root/line'], { stdin: `${line}\n` });
  return host.exec(['sh', '-c', `exec ${shell} </root/line`], { timeoutMs: 300_000 });
}

test('BOOT-08 RERUN-01 issue #42: pasted into bash, dash, zsh, mksh, busybox ash, fish and tcsh, the line installs a ready node and reruns with nothing changed', async () => {
  await withInstalledHost(release, async ({ host, core }) => {
    for (const shell of PASTE_SHELLS) {
      const gone = await host.exec(['oac-node', 'uninstall', '--force']);
      assert.equal(gone.status, 0, `${shell}: ${gone.stdout}\n${gone.stderr}`);
      const { command, installationId } = await issueToken(core);
      const first = await paste(host, shell, command);
      assert.equal(first.status, 0, `${shell}: ${first.stdout}\n${first.stderr}`);
      const nodeId = JSON.parse(
        await host.shOk(`cat /var/lib/oac-node/.oac/nodes/${installationId}/identity.json`),
      ) as { node_id: string };
      await waitUntil(`${shell}: the node ready`, () => listNodes(core), {
        timeoutMs: 30_000,
        intervalMs: 100,
        done: (nodes) =>
          nodes.some((n) => n.node_id === nodeId.node_id && n.connected && n.provider_ready),
      });
      const before = await host.snapshot();
      const rerun = await paste(host, shell, command);
      assert.equal(rerun.status, 0, `${shell}: ${rerun.stdout}\n${rerun.stderr}`);
      assert.match(rerun.stdout, /connected and ready/, shell);
      assert.deepEqual(diffSnapshots(before, await host.snapshot()), [], `${shell}: unchanged`);
    }
  });
});
