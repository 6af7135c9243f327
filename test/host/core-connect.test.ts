// The node connection of the reference Core (docs/node-protocol.md): admission, hello/welcome,
// readiness and rollout recorded in the node list, target on a specification change, removal
// closing with 4401, and the refusals (401, 409 for a second connection). Real WebSockets.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  call,
  connectNode,
  enrollNode,
  errorCode,
  startCore,
  upgradeStatus,
  type EnrolledNode,
  type NodeSocket,
  type TestCore,
} from '../helpers/core.ts';

let core: TestCore;
before(async () => {
  core = await startCore();
});
after(() => core.stop());

const connectUrl = (id: string) => `${core.core_url}/api/v1/sandbox-node/connect?node_id=${id}`;
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

interface NodeView {
  node_id: string;
  connected: boolean;
  provider_ready: boolean;
  readiness_code: string | null;
  rollout: { state: string; diagnostic: string | null };
  generation: number;
  managed: boolean | null;
}
async function nodeView(id: string): Promise<NodeView | undefined> {
  const r = await core.coreApi('GET', '/core/v1/sandbox/nodes');
  return (r.body as { nodes: NodeView[] }).nodes.find((n) => n.node_id === id);
}

async function currentGeneration(): Promise<number> {
  const r = await core.coreApi('GET', '/core/v1/sandbox/deployment');
  return (r.body as { generation: number }).generation;
}

// Enrolls, connects and says hello; returns the socket after the welcome.
async function online(
  managed = true,
): Promise<{ node: EnrolledNode; ws: NodeSocket; welcome: Record<string, unknown> }> {
  const node = await enrollNode(core);
  const ws = await connectNode(core, node);
  ws.send({
    type: 'hello',
    software: 'oac-node 0.1.0',
    managed,
    serving_generation: node.body.deployment_generation as number,
    provider_file_digest: null,
  });
  return { node, ws, welcome: await ws.next() };
}

// Waits until the node list shows what a just-sent message changed.
async function until(id: string, ok: (v: NodeView) => boolean): Promise<NodeView> {
  for (let i = 0; i < 50; i++) {
    const v = await nodeView(id);
    if (v && ok(v)) return v;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`node ${id} never reached the expected state: ${JSON.stringify(await nodeView(id))}`);
}

test('node-protocol hello → welcome with node ID, target generation and a 10 s heartbeat', async () => {
  const { node, ws, welcome } = await online();
  assert.deepEqual(welcome, {
    type: 'welcome',
    node_id: node.node_id,
    target_generation: await currentGeneration(),
    heartbeat_seconds: 10,
  });
  ws.close();
});

test('ENR-04 / NODE-04 readiness is recorded: identity and node list show connected and provider_ready', async () => {
  const { node, ws } = await online();
  ws.send({ type: 'readiness', provider_ready: false, code: 'runtime_image_unavailable' });
  const failing = await until(node.node_id, (v) => v.readiness_code !== null);
  assert.deepEqual(
    [failing.connected, failing.provider_ready, failing.readiness_code, failing.managed],
    [true, false, 'runtime_image_unavailable', true],
  );
  ws.send({ type: 'readiness', provider_ready: true, code: null });
  await until(node.node_id, (v) => v.provider_ready);
  const identity = await call(
    'GET',
    `${core.core_url}/api/v1/sandbox-node/identity?node_id=${node.node_id}`,
    { bearer: node.credential },
  );
  assert.deepEqual(
    [(identity.body as NodeView).connected, (identity.body as NodeView).provider_ready],
    [true, true],
  );
  ws.close();
  const gone = await until(node.node_id, (v) => !v.connected);
  assert.deepEqual([gone.provider_ready, gone.readiness_code], [false, null]);
});

test('NODE-03 Core refuses a second connection of the same node with 409', async () => {
  const { node, ws } = await online();
  assert.equal(await upgradeStatus(connectUrl(node.node_id), bearer(node.credential)), 409);
  ws.close();
  await ws.closed;
  await until(node.node_id, (v) => !v.connected);
  const again = await connectNode(core, node);
  again.close();
});

test('node-protocol connect refusals: 401 for a refused credential, 400 for a malformed node ID, 426 without Upgrade', async () => {
  const node = await enrollNode(core);
  assert.equal(await upgradeStatus(connectUrl(node.node_id), bearer('w'.repeat(40))), 401);
  assert.equal(await upgradeStatus(connectUrl(node.node_id)), 401);
  assert.equal(await upgradeStatus(connectUrl(randomUUID()), bearer(node.credential)), 401);
  assert.equal(await upgradeStatus(connectUrl(node.node_id), bearer(node.token)), 401);
  assert.equal(await upgradeStatus(connectUrl(node.node_id), bearer(core.core_key)), 401);
  const upper = connectUrl(node.node_id.toUpperCase());
  assert.equal(await upgradeStatus(upper, bearer(node.credential)), 400);
  const plain = await call('GET', connectUrl(node.node_id), { bearer: node.credential });
  assert.equal(plain.status, 426);
  // A broken handshake (ws answers 400) must not leave the node looking connected.
  const broken = { ...bearer(node.credential), 'sec-websocket-key': 'short' };
  assert.equal(await upgradeStatus(connectUrl(node.node_id), broken), 400);
  const ws = await connectNode(core, node);
  ws.close();
});

test('node-protocol target: a specification change bumps the generation and tells connected nodes', async () => {
  const { node, ws } = await online();
  const before = await currentGeneration();
  const spec = { release: 'none', cpus: 2, memory_mib: 512 };
  const put = await core.coreApi('PUT', '/core/v1/sandbox/specification', { specification: spec });
  assert.equal(put.status, 200);
  const d = put.body as { generation: number; specification_digest: string };
  assert.equal(d.generation, before + 1);
  assert.deepEqual(await ws.next(), { type: 'target', generation: before + 1 });
  const unchanged = await core.coreApi('PUT', '/core/v1/sandbox/specification', {
    specification: spec,
  });
  assert.equal(
    (unchanged.body as { generation: number }).generation,
    before + 1,
    'same spec, same generation',
  );

  // Rollout: pending until the node reports, then preparing, failed with a code, ready.
  assert.equal((await nodeView(node.node_id))?.rollout.state, 'pending');
  ws.send({ type: 'rollout', generation: before + 1, state: 'preparing', diagnostic: null });
  await until(node.node_id, (v) => v.rollout.state === 'preparing');
  ws.send({
    type: 'rollout',
    generation: before + 1,
    state: 'failed',
    diagnostic: 'capacity_insufficient',
  });
  const failed = await until(node.node_id, (v) => v.rollout.state === 'failed');
  assert.equal(failed.rollout.diagnostic, 'capacity_insufficient');
  ws.send({ type: 'rollout', generation: before + 1, state: 'ready', diagnostic: null });
  const ready = await until(node.node_id, (v) => v.rollout.state === 'ready');
  assert.equal(ready.generation, before + 1);
  // Placement preference: nodes ready for the target come first.
  const list = (await core.coreApi('GET', '/core/v1/sandbox/nodes')).body as { nodes: NodeView[] };
  const firstNotReady = list.nodes.findIndex((n) => n.rollout.state !== 'ready');
  const lastReady = list.nodes.map((n) => n.rollout.state).lastIndexOf('ready');
  assert.ok(firstNotReady === -1 || lastReady < firstNotReady, JSON.stringify(list.nodes));
  ws.close();
});

test('NODE-05 a manually registered node behind the target shows rollout incompatible', async () => {
  const { node, ws } = await online(false);
  assert.equal((await nodeView(node.node_id))?.managed, false);
  const generation = await currentGeneration();
  await core.coreApi('PUT', '/core/v1/sandbox/specification', {
    specification: { release: 'none', cpus: 1, memory_mib: 128 + generation },
  });
  assert.equal((await ws.next()).type, 'target');
  const v = await until(node.node_id, (n) => n.rollout.state !== 'ready');
  assert.deepEqual(v.rollout, { state: 'incompatible', diagnostic: 'Node software incompatible' });
  ws.close();
});

test('node-protocol close 4400: malformed messages, a message before hello, inconsistent readiness', async () => {
  const bad: Array<[string, (ws: NodeSocket) => void]> = [
    ['not JSON', (ws) => ws.sendText('{nope')],
    ['a JSON string', (ws) => ws.sendText('"hello"')],
    [
      'hello with an unknown field',
      (ws) =>
        ws.send({
          type: 'hello',
          software: 'x',
          managed: true,
          serving_generation: 1,
          provider_file_digest: null,
          extra: 1,
        }),
    ],
    ['unknown type', (ws) => ws.send({ type: 'gossip' })],
    [
      'readiness before hello',
      (ws) => ws.send({ type: 'readiness', provider_ready: true, code: null }),
    ],
  ];
  for (const [why, send] of bad) {
    const node = await enrollNode(core);
    const ws = await connectNode(core, node);
    send(ws);
    assert.equal((await ws.closed).code, 4400, why);
  }
  const { ws } = await online();
  ws.send({ type: 'readiness', provider_ready: true, code: 'host_unsupported' });
  assert.equal((await ws.closed).code, 4400, 'ready with a code');
});

test('machine-api DELETE node: 409 sandbox_node_busy while it holds work, then 204 closes its socket with 4401', async () => {
  const { node, ws } = await online();
  const path = `/core/v1/sandbox/nodes/${node.node_id}`;
  assert.equal((await core.coreApi('PUT', `${path}/work`, { sandboxes: 2 })).status, 200);
  const busy = await core.coreApi('DELETE', path);
  assert.equal(busy.status, 409);
  assert.equal(errorCode(busy), 'sandbox_node_busy');
  await core.coreApi('PUT', `${path}/work`, { sandboxes: 0 });
  assert.equal((await core.coreApi('DELETE', path)).status, 204);
  assert.deepEqual(await ws.closed, { code: 4401, reason: 'node removed' });
  // The credential is refused everywhere from now on.
  const auth = { bearer: node.credential };
  const api = `${core.core_url}/api/v1/sandbox-node`;
  assert.equal((await call('GET', `${api}/identity?node_id=${node.node_id}`, auth)).status, 401);
  const config = await call('GET', `${api}/configuration`, {
    ...auth,
    headers: { 'x-oac-node-id': node.node_id },
  });
  assert.equal(config.status, 401);
  assert.equal(await upgradeStatus(connectUrl(node.node_id), bearer(node.credential)), 401);
  assert.equal(await nodeView(node.node_id), undefined);
  assert.equal(errorCode(await core.coreApi('DELETE', path)), 'not_found');
});

test('node-protocol close 1001 when Core shuts down', async () => {
  const own = await startCore();
  try {
    const node = await enrollNode(own);
    const ws = await connectNode(own, node);
    await own.stop();
    assert.equal((await ws.closed).code, 1001);
    assert.deepEqual(await own.exited, { code: 0, signal: null });
  } finally {
    await own.stop();
  }
});
