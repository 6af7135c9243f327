// The nodes Core lists, and a node's removal in Core as Web's Nodes page does it (issue #28
// item 5); the node learns of its removal and stops for good (exit 78).
import assert from 'node:assert/strict';
import { layout, parseInstallationId } from '../../../src/layout.ts';
import type { CoreInHost } from '../helpers/core-in-host.ts';
import type { E2eHost } from './host.ts';
import { waitInHost } from './wait.ts';

/** A node as Core's GET /core/v1/sandbox/nodes shows it (fixtures/core/core-key-routes.ts). */
export interface CoreNode {
  node_id: string;
  name: string;
  connected: boolean;
  provider_ready: boolean;
  readiness_code: string | null;
  rollout: { state: string; diagnostic: string | null };
  generation: number;
  managed: boolean | null;
  /** The node's software as its hello named it (`oac-node/0.1.0`). */
  software: string | null;
}

export async function listNodes(core: CoreInHost): Promise<CoreNode[]> {
  return ((await core.coreApi('GET', '/core/v1/sandbox/nodes')).body as { nodes: CoreNode[] })
    .nodes;
}

/** Removes the node in Core, asserting Core's 204. */
export async function removeNodeInCore(core: CoreInHost, nodeId: string): Promise<void> {
  assert.equal((await core.coreApi('DELETE', `/core/v1/sandbox/nodes/${nodeId}`)).status, 204);
}

/** Removes every node Core lists (each asserted, 204); returns their IDs. */
export async function removeNodesInCore(core: CoreInHost): Promise<string[]> {
  const ids = (await listNodes(core)).map((n) => n.node_id);
  for (const id of ids) await removeNodeInCore(core, id);
  return ids;
}

/** Once Core removed it: waits (10 s at most, inside the host) until the node's unit is no
 *  longer active and, with `lockReleased`, its state lock is gone too. */
export async function untilNodeStopped(
  host: E2eHost,
  installationId: string,
  { lockReleased = false } = {},
): Promise<void> {
  const { unitName, stateDir } = layout(parseInstallationId(installationId));
  const lock = lockReleased ? ` && [ ! -e ${stateDir}/.lock ]` : '';
  await waitInHost(
    host,
    `${unitName} to stop${lockReleased ? ' and release its state lock' : ''}`,
    `! systemctl is-active --quiet ${unitName}${lock}`,
    { timeoutMs: 10_000, intervalMs: 100 },
  );
}
