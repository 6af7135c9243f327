// NODE-06 (issue #40): a node's host copied. The run's installed host boots as the original, with
// its Core; a second host boots from a copy of the same files (the installed root file system and
// Docker data) with a new machine ID, as a VM image or a copied disk would, and reaches the
// original's Core through a relay that counts every connection. On the copy the node's service
// stops for good (78) with its one line and no connection reaches Core; `status` and a rerun of
// the line say what happened and what to do, and the rerun changes nothing; after the fix
// (`uninstall --force`, then a new line from Core) the copy is a second node, and the original is
// still the same node, connected and ready.
import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { listNodes } from './harness/core-nodes.ts';
import { installByLine } from './harness/enroll.ts';
import { bootHost, type E2eHost, type HostNet } from './harness/host.ts';
import { installedFiles, withInstalledHost } from './harness/installed.ts';
import { scratchRoot } from './harness/rootfs.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { waitInHost, waitUntil } from './harness/wait.ts';
import { spawnInHostNet } from './helpers/core-in-host.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
const COPIED =
  /Node [0-9a-f-]{36} was registered on another host: this host has another machine ID/;

/** Unix sockets on this machine that carry the copy's connections to the original's Core (at
 *  its address), counting them. */
async function relayTo(dir: string, address: string, ports: number[]) {
  const counted = { connections: 0 };
  const servers: Server[] = [];
  const args: string[] = [];
  for (const port of ports) {
    const socket = join(dir, `relay-${port}.sock`);
    const server = createServer((client) => {
      counted.connections += 1;
      const upstream = createConnection({ host: address, port });
      const end = () => (client.destroy(), upstream.destroy());
      client.on('error', end);
      upstream.on('error', end);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    servers.push(server);
    args.push(`${port}=${socket}`);
  }
  const children: ChildProcess[] = [];
  /** Starts the copy's end, in its network namespace, as soon as it exists. */
  const inHost = async (net: HostNet) => {
    const child = spawnInHostNet(net, 'test/e2e/helpers/unix-relay.ts', args);
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`the relay ended (${code})`)));
    });
    return child;
  };
  // The relay's process too: alive, it would keep this test process from ending.
  const close = () => {
    servers.forEach((s) => s.close());
    children.forEach((c) => c.kill('SIGKILL'));
  };
  return { counted, inHost, close };
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

async function serviceEnded(host: E2eHost, unit: string): Promise<Record<string, string>> {
  await waitInHost(host, `${unit} to stop`, `! systemctl is-active --quiet ${unit}`, {
    timeoutMs: 30_000,
    intervalMs: 200,
  });
  const show = await host.shOk(`systemctl show -p ExecMainStatus -p NRestarts -p Result ${unit}`);
  return Object.fromEntries(
    show
      .trim()
      .split('\n')
      .map((l) => l.split('=') as [string, string]),
  );
}

test('NODE-06 a copied host: its service stops for good unheard by Core, status and a rerun name the fix, and after it the copy is a second node', async () => {
  await withInstalledHost(release, async ({ host: original, core, line }) => {
    const id = line.installationId;
    const unit = `oac-node-${id}.service`;
    const [node] = await listNodes(core);
    assert.ok(node !== undefined && node.connected);
    const files = await installedFiles(release);
    const dir = mkdtempSync(join(scratchRoot, 'copied-host-'));
    const relay = await relayTo(dir, original.address, [
      portOf(core.coreUrl),
      portOf(core.releaseUrl),
    ]);
    let copy: E2eHost | undefined;
    try {
      // The copy: the same files, and a machine ID of its own (as an image tool gives it).
      execFileSync('cp', ['-a', files.upper, join(dir, 'upper')]);
      writeFileSync(join(dir, 'upper/etc/machine-id'), `${randomBytes(16).toString('hex')}\n`);
      copy = await bootHost({
        layer: join(dir, 'upper'),
        dockerSeed: files.docker,
        whenNetworked: relay.inHost,
      });
      const ended = await serviceEnded(copy, unit);
      assert.deepEqual([ended.ExecMainStatus, ended.NRestarts], ['78', '0'], JSON.stringify(ended));
      const log = await copy.shOk(`journalctl -u ${unit} -o cat --no-pager`);
      assert.match(log, COPIED);
      assert.doesNotMatch(log, /Connected to Core|Cannot reach Core/);

      const status = await copy.exec(['oac-node', 'status']);
      assert.equal(status.status, 78, `${status.stdout}\n${status.stderr}`);
      assert.match(status.stdout, COPIED);
      assert.match(status.stdout, new RegExp(`oac-node uninstall --installation-id ${id} --force`));
      assert.match(status.stdout, /--same-host < \/dev\/null/);

      const before = await copy.snapshot();
      const rerun = await copy.exec(['sh'], { stdin: `${line.command}\n`, timeoutMs: 300_000 });
      assert.equal(rerun.status, 78, `${rerun.stdout}\n${rerun.stderr}`);
      assert.match(rerun.stderr, COPIED);
      assert.match(rerun.stderr, /uninstall --installation-id \S+ --force, then paste a new line/);

      assert.deepEqual(diffSnapshots(before, await copy.snapshot()), []);
      // Not a connection from the copy so far: the service stopped before it, status and the
      // rerun (its kept installer verified, not fetched again) asked Core nothing.
      assert.equal(relay.counted.connections, 0, 'Core heard nothing from the copy');
      // --same-host on a copy while the original runs: Core, asked, has the node connected
      // (from the original): refused, and nothing changed.
      const claimed = await copy.exec(
        ['oac-node', 'install', '--core-url', core.coreUrl, '--installation-id', id, '--same-host'],
        { stdin: '' },
      );
      assert.equal(claimed.status, 78, `${claimed.stdout}\n${claimed.stderr}`);
      assert.match(claimed.stderr, /Core has node \S+ connected from another host now/);
      assert.deepEqual(diffSnapshots(before, await copy.snapshot()), [], '--same-host: unchanged');

      // The fix: the copy leaves the node to the original, and joins as a node of its own.
      const forced = await copy.exec(['oac-node', 'uninstall', '--force']);
      assert.equal(forced.status, 0, `${forced.stdout}\n${forced.stderr}`);
      await installByLine(copy, core);
      const nodes = await waitUntil('two nodes, both connected and ready', () => listNodes(core), {
        timeoutMs: 90_000,
        intervalMs: 200,
        done: (list) => list.length === 2 && list.every((n) => n.connected && n.provider_ready),
      });
      assert.ok(
        nodes.some((n) => n.node_id === node.node_id),
        'the original keeps its node',
      );
      const originalStatus = await original.exec(['oac-node', 'status']);
      assert.equal(originalStatus.status, 0, originalStatus.stdout);
      assert.ok(relay.counted.connections > 0, 'the copy reached Core through the relay');
    } finally {
      await copy?.stop();
      relay.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('NODE-06 the same host with its machine ID changed on purpose: the command status prints confirms it, and the node runs again', async () => {
  await withInstalledHost(release, async ({ host, core, line }) => {
    const unit = `oac-node-${line.installationId}.service`;
    const [node] = await listNodes(core);
    await host.shOk(
      `printf '%s\\n' ${randomBytes(16).toString('hex')} > /etc/machine-id && systemctl restart ${unit} || true`,
    );
    const ended = await serviceEnded(host, unit);
    assert.equal(ended.ExecMainStatus, '78', JSON.stringify(ended));
    const status = await host.exec(['oac-node', 'status', '--json']);
    assert.equal(status.status, 78, status.stderr);
    const next = (JSON.parse(status.stdout) as { next: string[] }).next;
    const confirm =
      /confirm it with: (?:sudo )?(oac-node install .* --same-host) < \/dev\/null$/.exec(
        next[1] ?? '',
      );
    assert.ok(confirm?.[1] !== undefined, next.join('\n'));
    const rerun = await host.exec(['sh', '-c', `${confirm[1]} < /dev/null`], {
      timeoutMs: 300_000,
    });
    assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
    assert.match(rerun.stdout, /record this host's new machine ID|this host recorded/);
    await waitInHost(host, `${unit} to run`, `systemctl is-active --quiet ${unit}`, {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    const again = await host.exec(['oac-node', 'status']);
    assert.equal(again.status, 0, again.stdout);
    const nodes = await listNodes(core);
    assert.deepEqual(
      nodes.map((n) => n.node_id),
      [node?.node_id],
      'still the one node, not a second',
    );
  });
});
