// The end of a node's life in an e2e test, as the guide has it: Core removes the node, its
// service stops for good, the uninstall command removes what the installer made, and the host is
// back to its snapshot from before, the kept Runtime image(s) aside (UNI-01, UNI-04).
import assert from 'node:assert/strict';
import { removeNodeInCore, untilNodeStopped } from '../harness/core-nodes.ts';
import type { E2eHost } from '../harness/host.ts';
import { beyondKeptImage, diffSnapshots, type HostSnapshot } from '../harness/snapshot.ts';
import type { CoreInHost } from './core-in-host.ts';

export async function removeAndUninstall(
  host: E2eHost,
  core: CoreInHost,
  node: { nodeId: string; installationId: string; uninstall: string[] },
  pristine: HostSnapshot,
): Promise<void> {
  await removeNodeInCore(core, node.nodeId);
  await untilNodeStopped(host, node.installationId);
  const removed = await host.exec(node.uninstall);
  assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
  const differences = diffSnapshots(pristine, await host.snapshot());
  assert.ok(
    beyondKeptImage(differences).length === 0,
    `only the kept image differs:\n${differences.join('\n')}`,
  );
}
