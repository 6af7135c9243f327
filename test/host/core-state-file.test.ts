// The reference Core's `--state-file` (issue #28 item 4): a Core started from what another
// answered at GET /__fixture/state knows what that one knew, so a host booted from a frozen
// install (test/e2e/harness/installed.ts) finds its node still registered. Real processes, real
// HTTP on loopback.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  call,
  enrollBody,
  enrollNode,
  connectNode,
  startCore,
  type EnrolledNode,
  type NodeSocket,
  type TestCore,
} from '../helpers/core.ts';
import { repoRoot } from '../helpers/executable.ts';
import type { StateSnapshot } from '../../fixtures/core/state.ts';

const scratch = mkdtempSync(join(tmpdir(), 'oac-core-state-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const nodeApi = (core: TestCore, route: string) => `${core.core_url}/api/v1/sandbox-node/${route}`;

test("issue #28 a Core started from another one's state answers the same state, its nodes not ready until they say hello again; removed IDs stay removed, unused tokens usable", async () => {
  const installationId = randomUUID();
  const first = await startCore(['--installation-id', installationId]);
  let saved!: string;
  let before!: StateSnapshot;
  let kept!: EnrolledNode;
  let removedId!: string;
  let unused!: string;
  try {
    kept = await enrollNode(first);
    const ws = await online(first, kept);
    ws.send({ type: 'readiness', provider_ready: true, code: null });
    await untilListed(first, (n) => n.provider_ready);
    removedId = (await enrollNode(first)).node_id;
    const del = await first.coreApi('DELETE', `/core/v1/sandbox/nodes/${removedId}`);
    assert.equal(del.status, 204);
    const issued = await first.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
    unused = (issued.body as { token: string }).token;
    const state = await first.coreApi('GET', '/__fixture/state');
    assert.equal(state.status, 200);
    before = state.body as StateSnapshot;
    saved = join(scratch, 'state.json');
    writeFileSync(saved, JSON.stringify(before), { mode: 0o600 });
  } finally {
    await first.stop();
  }

  const second = await startCore(['--installation-id', installationId, '--state-file', saved]);
  try {
    // Everything carried over (a field left behind shows here), but readiness: a node is ready
    // again only once it has said hello and reported it on a new connection.
    const after = await second.coreApi('GET', '/__fixture/state');
    const notReady = before.nodes.map((n) => ({
      ...n,
      provider_ready: false,
      readiness_code: null,
    }));
    assert.deepEqual(after.body, { ...before, nodes: notReady });
    const [listed] = await untilListed(second, () => true);
    assert.deepEqual(
      [listed?.node_id, listed?.connected, listed?.provider_ready],
      [kept.node_id, false, false],
    );
    const ws = await online(second, kept);
    ws.send({ type: 'readiness', provider_ready: true, code: null });
    await untilListed(second, (n) => n.connected && n.provider_ready);
    ws.close();

    const reused = await call('POST', nodeApi(second, 'enroll'), {
      bearer: unused,
      json: { ...(await enrollBody(second, unused)), node_id: removedId },
    });
    assert.equal(reused.status, 409, 'a removed node ID never registers again');
    const fresh = await call('POST', nodeApi(second, 'enroll'), {
      bearer: unused,
      json: await enrollBody(second, unused),
    });
    assert.equal(fresh.status, 201, 'an unused token still enrolls');
  } finally {
    await second.stop();
  }
  // Another installation's Core (or the same one started without its ID) refuses the file.
  const other = startFromFile(saved, randomUUID());
  assert.equal(other.status, 1, other.stderr);
  assert.match(firstLine(other.stderr), /^reference core: the state file is of installation /);
  assert.match(firstLine(other.stderr), /--installation-id/);
});

function startFromFile(file: string, installationId: string) {
  const argv = ['--installation-id', installationId, '--state-file', file];
  return spawnSync(process.execPath, ['--import', 'tsx', 'fixtures/core/main.ts', ...argv], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

const firstLine = (text: string) => text.split('\n')[0] ?? '';

interface Listed {
  node_id: string;
  connected: boolean;
  provider_ready: boolean;
}

/** The node list once `ok` holds for its first node (5 s at most). */
async function untilListed(core: TestCore, ok: (n: Listed) => boolean): Promise<Listed[]> {
  for (let i = 0; ; i++) {
    const r = await core.coreApi('GET', '/core/v1/sandbox/nodes');
    const nodes = (r.body as { nodes: Listed[] }).nodes;
    if (nodes[0] !== undefined && ok(nodes[0])) return nodes;
    if (i === 250) assert.fail(`the node list never got there: ${JSON.stringify(nodes)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The node's WebSocket, after hello and Core's welcome. */
async function online(core: TestCore, node: EnrolledNode): Promise<NodeSocket> {
  const ws = await connectNode(core, node);
  ws.send({
    type: 'hello',
    software: 'oac-node 0.1.0',
    managed: true,
    serving_generation: node.body.deployment_generation as number,
    provider_file_digest: null,
  });
  assert.equal((await ws.next()).type, 'welcome');
  return ws;
}

test('issue #28 a state file of another shape stops the Core at start in one line naming it', () => {
  const saved = join(scratch, 'other.json');
  writeFileSync(saved, JSON.stringify({ installation_id: randomUUID(), nodes: 'all of them' }));
  const shape = startFromFile(saved, randomUUID());
  assert.equal(shape.status, 2, shape.stderr);
  assert.match(firstLine(shape.stderr), /^reference core: --state-file \S+other\.json: /);
  assert.equal(shape.stdout, '', 'never started');
});
