// `oac-node run` (NODE-02, NODE-03, NODE-05, SEC-03): the real executable against the reference
// Core on loopback and a private real dockerd.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startCore, type TestCore } from '../helpers/core.ts';
import {
  dockerAdapter,
  runExe,
  startRun,
  waitForNode,
  registerNode,
  type RegisteredNode,
} from '../helpers/node.ts';
import { tcpForwarder } from '../helpers/forwarder.ts';
import {
  privateDockerd,
  runtimeImageArchive,
  type PrivateDockerd,
} from '../helpers/private-dockerd.ts';

let core: TestCore;
let scratch: string;
let dockerd: PrivateDockerd;
let image: string;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'oac-run-'));
  dockerd = privateDockerd(join(scratch, 'docker'));
  await dockerd.start();
  const runtime = await runtimeImageArchive(join(scratch, 'build'));
  assert.equal(dockerd.docker(['load', '-i', runtime.archive]).status, 0);
  image = runtime.reference;
  core = await startCore();
});
after(async () => {
  await core.stop();
  await dockerd.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function registered(name: string, c: TestCore = core): Promise<RegisteredNode> {
  return registerNode(c, join(scratch, name), dockerAdapter(dockerd.host, image), name);
}

test('NODE-01/NODE-04 register, run: Core lists the node connected and ready', async () => {
  const node = await registered('ready');
  const run = startRun(node);
  try {
    const view = await waitForNode(core, node.nodeId, (n) => n.connected && n.provider_ready);
    assert.equal(view.readiness_code, null);
    assert.equal(view.managed, false, 'a manually registered node says so in hello');
    await run.waitFor(/Readiness: ready/);
  } finally {
    assert.equal(await run.stop(), 0, 'SIGTERM stops run cleanly');
  }
  await waitForNode(core, node.nodeId, (n) => !n.connected);
});

test('NODE-01 OPS-03 SIGTERM the moment the connection opens still stops run at once', async () => {
  // The abort used to be heard only once the session had read its serving record: a SIGTERM in
  // between was lost and run went on heartbeating forever (it hung session 9's CI).
  const node = await registered('stop-at-open');
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const run = startRun(node);
    await run.waitFor(/Connected to Core/);
    assert.equal(await run.stop(5_000), 0, `attempt ${attempt}: SIGTERM stops run cleanly`);
  }
});

test('NODE-03 a second run on the same state dir exits at once with a clear message', async () => {
  const node = await registered('locked');
  const run = startRun(node);
  try {
    await waitForNode(core, node.nodeId, (n) => n.connected);
    const started = Date.now();
    const second = runExe(['run', '--config', node.config, '--state-dir', node.stateDir]);
    assert.equal(second.status, 1);
    assert.match(
      second.stderr,
      /^oac-node: Another oac-node process is using the state directory /m,
    );
    assert.ok(Date.now() - started < 5000, 'at once, not after a wait');
  } finally {
    await run.stop();
  }
});

test('NODE-03 Core refuses a second connection of the same node (a copied state dir)', async () => {
  const node = await registered('copied');
  const copy = join(scratch, 'copied-state');
  mkdirSync(copy, { mode: 0o700 });
  writeFileSync(join(copy, 'identity.json'), readFileSync(join(node.stateDir, 'identity.json')), {
    mode: 0o600,
  });
  const first = startRun(node);
  try {
    await waitForNode(core, node.nodeId, (n) => n.connected);
    const second = startRun({ config: node.config, stateDir: copy });
    try {
      await second.waitFor(/Core did not accept the connection .*it still knows this node/);
      assert.equal(second.child.exitCode, null, 'it keeps retrying rather than exiting 78');
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
  }
});

test('NODE-02 Core removes the node: run exits 78', async () => {
  const node = await registered('removed');
  const run = startRun(node);
  await waitForNode(core, node.nodeId, (n) => n.connected);
  const r = await core.coreApi('DELETE', `/core/v1/sandbox/nodes/${node.nodeId}`);
  assert.equal(r.status, 204);
  assert.equal(await run.exited, 78);
  assert.match(run.output(), /Core no longer accepts this node: exiting 78/);
  // A restart (what systemd would do without RestartPreventExitStatus=78) exits 78 again.
  const again = runExe(['run', '--config', node.config, '--state-dir', node.stateDir]);
  assert.equal(again.status, 78);
});

test('NODE-02 Core unreachable: run keeps retrying and connects when Core returns', async () => {
  const proxy = await tcpForwarder();
  const behind = await startCore(['--public-url', `http://127.0.0.1:${proxy.port}`]);
  try {
    proxy.target = Number(new URL(behind.core_url).port);
    const front = { ...behind, core_url: `http://127.0.0.1:${proxy.port}` };
    const node = await registered('outage', front);
    const run = startRun(node);
    try {
      await waitForNode(behind, node.nodeId, (n) => n.connected && n.provider_ready);
      await proxy.down();
      await waitForNode(behind, node.nodeId, (n) => !n.connected);
      await run.waitFor(/Reconnecting in/);
      await run.waitFor(/Cannot reach Core at http:\/\/127\.0\.0\.1:\d+: connection refused/);
      assert.equal(run.child.exitCode, null, 'an unreachable Core is not a removal');
      await proxy.up();
      await waitForNode(behind, node.nodeId, (n) => n.connected && n.provider_ready, 40_000);
      assert.equal((run.output().match(/Connected to Core/g) ?? []).length, 2);
    } finally {
      await run.stop();
    }
  } finally {
    await behind.stop();
    await proxy.down();
  }
});

test('NODE-01 OPS-03 SIGTERM while Core does not answer the connection stops run at once', async () => {
  const proxy = await tcpForwarder();
  const behind = await startCore(['--public-url', `http://127.0.0.1:${proxy.port}`]);
  try {
    proxy.target = Number(new URL(behind.core_url).port);
    const node = await registered('black-hole', {
      ...behind,
      core_url: `http://127.0.0.1:${proxy.port}`,
    });
    proxy.silent = true;
    const before = proxy.accepted;
    const run = startRun(node);
    for (let i = 0; i < 100 && proxy.accepted === before; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(proxy.accepted > before, 'run reached Core, which never answers');
    await new Promise((resolve) => setTimeout(resolve, 200)); // the upgrade request is sent
    assert.equal(run.child.exitCode, null, 'still opening');
    // The open's own timeout is 15 s: SIGTERM must not wait for it.
    assert.equal(await run.stop(5_000), 0, run.output());
  } finally {
    await behind.stop();
    await proxy.down();
  }
});

test('NODE-05 a provider file changed after registration takes no work until restored', async () => {
  const node = await registered('drift');
  const original = readFileSync(node.config);
  const run = startRun(node);
  try {
    await waitForNode(core, node.nodeId, (n) => n.provider_ready);
    const changed = JSON.parse(original.toString()) as { adapter: { network: string } };
    changed.adapter.network = 'another-network';
    writeFileSync(node.config, JSON.stringify(changed));
    await waitForNode(
      core,
      node.nodeId,
      (n) => !n.provider_ready && n.readiness_code === 'artifacts_unavailable',
    );
    await run.waitFor(/differs from the one approved for generation 1/);
    writeFileSync(node.config, original);
    await waitForNode(core, node.nodeId, (n) => n.provider_ready);
  } finally {
    await run.stop();
  }
});

test('NODE-05 a manually registered node shows "Node software incompatible" after a configuration change and stays connected', async () => {
  const other = await startCore();
  try {
    const node = await registered('incompatible', other);
    const run = startRun(node);
    try {
      await waitForNode(other, node.nodeId, (n) => n.connected && n.provider_ready);
      const spec = (node.configuration.specification ?? {}) as Record<string, unknown>;
      const r = await other.coreApi('PUT', '/core/v1/sandbox/specification', {
        specification: { ...spec, memory_mib: 300 },
      });
      assert.ok(r.status < 300, JSON.stringify(r.body));
      const view = await waitForNode(
        other,
        node.nodeId,
        (n) => n.rollout.diagnostic === 'Node software incompatible',
      );
      assert.equal(view.connected, true);
      await run.waitFor(/target generation is now 2/);
    } finally {
      await run.stop();
    }
  } finally {
    await other.stop();
  }
});

test("SEC-03 the credential and token are not in the run process's argv, environment or output", async () => {
  const node = await registered('secrets');
  const run = startRun(node);
  try {
    await waitForNode(core, node.nodeId, (n) => n.connected);
    const pid = run.child.pid;
    assert.ok(pid !== undefined);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    for (const secret of [node.credential, node.token]) {
      assert.ok(!cmdline.includes(secret), 'argv');
      assert.ok(!environ.includes(secret), 'environment');
      assert.ok(!run.output().includes(secret), 'output');
    }
  } finally {
    await run.stop();
  }
});

test('issue #6 NODE-05 a manually registered node after a configuration change: "Node software incompatible", still connected, still serving its generation', async () => {
  const own = await startCore();
  try {
    const node = await registered('manual-change', own);
    const run = startRun(node);
    try {
      await waitForNode(own, node.nodeId, (n) => n.connected && n.provider_ready);
      const deployment = (await own.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
        specification: Record<string, unknown>;
      };
      const changed = { ...deployment.specification, memory_mib: 300 };
      const put = await own.coreApi('PUT', '/core/v1/sandbox/specification', {
        specification: changed,
      });
      assert.equal(put.status, 200);
      const view = await waitForNode(own, node.nodeId, (n) => n.rollout.state === 'incompatible');
      assert.equal(view.rollout.diagnostic, 'Node software incompatible');
      assert.equal(view.connected, true, 'it keeps its connection');
      assert.equal(view.generation, 1, 'and serves the generation it registered with');
      await run.waitFor(/a manually registered node serves only its registration's configuration/);
    } finally {
      assert.equal(await run.stop(), 0);
    }
  } finally {
    await own.stop();
  }
});
