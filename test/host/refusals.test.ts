// Refusals at the host tier (issue #28 item 3). Each test here was an e2e test that checked only
// a refusal with nothing changed, and none needs a booted host with real systemd to mean what it
// says: the refusal is decided from what the installer reads (its UID, Core's configuration, the
// records in /etc/oac-node, Docker's figures), and each of those is real here too. The built
// executable runs with --root on a scratch tree against the reference Core on loopback, and each
// test keeps the e2e test's assertions: the guide's one line, the exit status, and the tree
// exactly as it was (the e2e snapshot's users, groups, units, records and node files are all
// files under --root). PRE-02 moved too, as a row of hostile-rows.ts ('the token in
// OAC_ENROLLMENT_TOKEN'). The preflight checks that need a real host stay in
// test/e2e/preflight.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { Journal } from '../../records/journal.ts';
import { desired, sha256 } from '../../src/engine/desired.ts';
import { reconcile } from '../../src/engine/reconcile.ts';
import { Host } from '../../src/host/host.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { makeReleaseDir, startCore, type TestCore } from '../helpers/core.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { issueToken } from '../helpers/node.ts';
import { privateDockerd } from '../helpers/private-dockerd.ts';
import { dockerGid, makeScratchRoot, treeDiff, treeOf } from '../helpers/scratch-root.ts';

const CORE_ID = parseInstallationId('5d0c7e8a-3b1f-4c2d-9e6a-7f8b9c0d1e21');
const OTHER_ID = parseInstallationId('9a4b5c6d-7e8f-4a1b-8c2d-3e4f5a6b7c82');
const NOBODY = 65534;
// The Docker socket stand-in (PRE-06) is a socket: no content to compare. The installer lock
// (run/oac-node, tmpfs on a real host) stays once taken, empty: it is not the host's state.
// useradd's backups and lock file (the installed root half) are no resource of ours either.
const IGNORE = /^(var\/run\/docker\.sock|run\/oac-node(\/installer\.lock)?|etc\/[a-z]+-)$/;

let release: Awaited<ReturnType<typeof makeReleaseDir>>;
let core: TestCore;
let root: string;

before(async () => {
  release = await makeReleaseDir();
  core = await startCore(['--release-dir', release.dir, '--installation-id', CORE_ID]);
});
after(async () => {
  await core?.stop();
  await release?.cleanup();
});
beforeEach(() => {
  root = makeScratchRoot();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The executable as a child. `keepStdinOpen`: stdin is written but never closed, so a run
 *  that reads it to its end or to a line end would wait for the 60 s kill. */
function runExe(
  args: string[],
  o: { stdin: string; keepStdinOpen?: boolean; uid?: number } = { stdin: '' },
): Promise<Ran> {
  const child = spawn(requireExecutable(), args, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(o.uid === undefined ? {} : { uid: o.uid, gid: o.uid }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  child.stdin.on('error', () => undefined); // a refusal may close stdin before it is written
  if (o.keepStdinOpen === true) child.stdin.write(o.stdin);
  else child.stdin.end(o.stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

/** install as the line runs it, with --root and a fixed node name. */
const install = (coreUrl: string, id: string) => [
  'install',
  ...['--core-url', coreUrl, '--installation-id', id, '--name', 'node-1', '--root', root],
];

/** Runs `run` and checks that it failed with `status` (or any non-zero one) and the one line
 *  `expected`, and left the tree exactly as it was (PRE-09). */
async function refused(expected: RegExp, run: () => Promise<Ran>, status?: number): Promise<Ran> {
  const initial = treeOf(root, IGNORE);
  const r = await run();
  const shown = `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  if (status === undefined) assert.ok(r.status !== null && r.status !== 0, shown);
  else assert.equal(r.status, status, shown);
  assert.match(r.stderr, expected, shown);
  assert.deepEqual(
    treeDiff(initial, treeOf(root, IGNORE)),
    { added: [], removed: [], changed: [] },
    'PRE-09 the host is unchanged',
  );
  return r;
}

/** What a finished install of `id` at `coreUrl` leaves of root's half on the scratch tree: the
 *  account, its group, the program, the unit (enabled) and the record, made by the same drivers
 *  and journal the installer uses. The node half (the node's files, Docker's image and network)
 *  needs Docker and Core, and no refusal here reads it. */
async function installedRootHalf(id: string, coreUrl: string): Promise<void> {
  const installation = parseInstallationId(id);
  const names = layout(installation);
  const program = join(mkdtempSync(join(tmpdir(), 'oac-program-')), 'oac-node');
  const text = '#!/bin/sh\necho node program\n';
  writeFileSync(program, text, { mode: 0o755 });
  try {
    const resources = desired({
      layout: names,
      provider: 'docker',
      group: 'docker',
      coreUrl,
      corePin: null,
      proxyEnv: {},
      envKey: 'e0'.repeat(32),
      program: { source: program, sha256: sha256(text) },
    }).filter((r) => r.phase !== 'prepare');
    const host = new Host(root);
    const journal = await Journal.open(host, installation, coreUrl);
    await journal.setInputs({ provider: 'docker', group: 'docker', checkpoint_root: null });
    const emit = () => undefined;
    await reconcile(resources, { host, layout: names, journal, emit }, { dryRun: false, emit });
  } finally {
    rmSync(dirname(program), { recursive: true, force: true });
  }
  for (const path of [names.journal, names.unitPath, '/var/lib/oac-node'])
    assert.ok(existsSync(join(root, path)), `the first install made ${path}`);
}

const requestsTo = async (c: TestCore) =>
  ((await c.coreApi('GET', '/__fixture/requests')).body as unknown[]).length;

test('PRE-01 not root: the installer stops before reading the token, nothing changed', async () => {
  const token = await issueToken(core);
  const asked = await requestsTo(core);
  // As nobody, with the token on a stdin that never ends (no line end, never closed): reading
  // the token would wait for the 60 s kill.
  await refused(
    /^oac-node: Node installation and removal require root$/m,
    () =>
      runExe(install(core.core_url, CORE_ID), { stdin: token, keepStdinOpen: true, uid: NOBODY }),
    1,
  );
  assert.equal(await requestsTo(core), asked, 'nothing reached Core');
});

// Docker's CPUs and memory are what the installer compares with the sandbox size: a private
// real dockerd answers for them (test/helpers/private-dockerd.ts), reached through a stand-in
// /var/run/docker.sock on the scratch tree, root:docker 0660 as Docker's package makes it.
test('PRE-06 a specification larger than the host: "This host has N CPUs and M MiB of memory; …", nothing changed', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'oac-refusals-dockerd-'));
  const dockerd = privateDockerd(scratch);
  let socket: Server | undefined;
  const deployment = (await core.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
    specification: Record<string, unknown>;
  };
  const original = deployment.specification;
  try {
    await dockerd.start();
    socket = await dockerSocket(dockerd.host.replace(/^unix:\/\//, ''));
    const info = dockerd.docker(['info', '--format', '{{.NCPU}} {{.MemTotal}}']);
    const [cpus, memory] = info.stdout.trim().split(' ').map(Number);
    assert.ok(cpus && memory, info.stderr);
    const changed = await core.coreApi('PUT', '/core/v1/sandbox/specification', {
      specification: { ...original, cpus: 4096 },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const mib = Math.floor(memory / (1024 * 1024));
    await refused(
      new RegExp(
        `^oac-node: This host has ${cpus} CPUs and ${mib} MiB of memory; each sandbox needs 4096 CPUs and \\d+ MiB$`,
        'm',
      ),
      async () => runExe(install(core.core_url, CORE_ID), { stdin: `${await issueToken(core)}\n` }),
    );
  } finally {
    await core.coreApi('PUT', '/core/v1/sandbox/specification', { specification: original });
    await new Promise((resolve) => (socket ? socket.close(resolve) : resolve(undefined)));
    await dockerd.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('PRE-08 a command naming another Core address is refused with the guide line, nothing changed', async () => {
  // localhost reaches the same Core as 127.0.0.1, whose configuration names 127.0.0.1.
  const other = core.core_url.replace('//127.0.0.1:', '//localhost:');
  assert.notEqual(other, core.core_url);
  await refused(
    /^oac-node: Core's public URL changed after this command was generated$/m,
    async () => runExe(install(other, CORE_ID), { stdin: `${await issueToken(core)}\n` }),
  );
});

test('RERUN-02 the same installation at another Core address: "This host\'s node uses …, but this command uses …", nothing changed', async () => {
  await installedRootHalf(CORE_ID, core.core_url);
  // localhost and 127.0.0.1 reach the same Core, but they are two addresses.
  const port = new URL(core.core_url).port;
  await refused(
    new RegExp(
      `^oac-node: This host's node uses http://127\\.0\\.0\\.1:${port}, but this command uses http://localhost:${port}$`,
      'm',
    ),
    async () =>
      runExe(install(`http://localhost:${port}`, CORE_ID), {
        stdin: `${await issueToken(core)}\n`,
      }),
  );
});

test("HOST-10 one Core per host: a second Core's command is refused and changes nothing", async () => {
  await installedRootHalf(CORE_ID, core.core_url);
  const other = await startCore(['--release-dir', release.dir, '--installation-id', OTHER_ID]);
  try {
    const token = await issueToken(other);
    await refused(
      /^oac-node: This host already runs a node for another Core$/m,
      () => runExe(install(other.core_url, OTHER_ID), { stdin: `${token}\n` }),
      1,
    );
    const nodes = (await other.coreApi('GET', '/core/v1/sandbox/nodes')).body as {
      nodes: unknown[];
    };
    assert.equal(nodes.nodes.length, 0, 'the second Core has no node');
  } finally {
    await other.stop();
  }
});

/** A stand-in for the host's /var/run/docker.sock on the scratch tree, passing each connection
 *  to `target` (the private dockerd's socket). */
async function dockerSocket(target: string): Promise<Server> {
  const path = join(root, 'var/run/docker.sock');
  mkdirSync(dirname(path), { recursive: true });
  const server = createServer((client) => {
    const upstream = createConnection(target);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chownSync(path, 0, dockerGid(root));
  chmodSync(path, 0o660);
  return server;
}
