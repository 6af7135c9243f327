// Refusals at the host tier (issue #28 item 3). Each test here was an e2e test that checked only
// a refusal with nothing changed, and none needs a booted host with real systemd to mean what it
// says: the refusal is decided from what the installer reads (its UID, Core's configuration, the
// records in /etc/oac-node, /sys/fs/selinux/enforce, the Docker socket's file and its answers,
// /dev/kvm, Docker's figures, the free space of two file systems), and each of those is real here
// too or is the file a host would show. The built executable runs with --root on a scratch tree
// against the reference Core on loopback, and each test keeps the e2e test's assertions: the
// guide's one line, the exit status, and the tree exactly as it was (the e2e snapshot's users,
// groups, units, records and node files are all files under --root; Docker's images and networks
// are the private daemon's, where one answers). PRE-02 moved too, as a row of hostile-rows.ts
// ('the token in OAC_ENROLLMENT_TOKEN'). No preflight refusal is left in the e2e tier.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { Journal } from '../../records/journal.ts';
import { desired } from '../helpers/desired.ts';
import { sha256 } from '../../src/resources/sha256.ts';
import { planAndApply } from '../../src/installation/plan-for.ts';
import { Host } from '../../src/host/host.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { makeReleaseDir, startCore, type TestCore } from '../helpers/core.ts';
import { dockerdInNamespace, shq, type DockerdInNamespace } from '../helpers/dockerd-namespace.ts';
import { executableForAnyone, requireExecutable } from '../helpers/executable.ts';
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
  // The test release's image names no manifest_digest (it is optional): PRE-07 must be checked
  // all the same (the installer once took the image Docker lacks for one it has, undefined ===
  // undefined, and skipped the disk check).
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
 *  that reads it to its end or to a line end would wait for the 60 s kill. `prefix`: the argv
 *  that runs it (nsenter into a private daemon's mount namespace). */
function runExe(
  args: string[],
  o: { stdin: string; keepStdinOpen?: boolean; uid?: number; prefix?: string[] } = { stdin: '' },
): Promise<Ran> {
  // As another account, a copy it can reach (the checkout may be private).
  const exe = o.uid === undefined ? requireExecutable() : executableForAnyone();
  const [command, ...argv] = [...(o.prefix ?? []), exe, ...args] as [string, ...string[]];
  const child = spawn(command, argv, {
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
 *  `expected`, and left the tree exactly as it was (PRE-09). `tree`: the scratch tree as the
 *  installer sees it, when that is in another mount namespace; `ignore`: paths not compared. */
async function refused(
  expected: RegExp,
  run: () => Promise<Ran>,
  status?: number,
  o: { tree?: string; ignore?: RegExp } = {},
): Promise<Ran> {
  const tree = o.tree ?? root;
  const ignore = o.ignore ?? IGNORE;
  const initial = treeOf(tree, ignore);
  const r = await run();
  const shown = `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  if (status === undefined) assert.ok(r.status !== null && r.status !== 0, shown);
  else assert.equal(r.status, status, shown);
  assert.match(r.stderr, expected, shown);
  assert.deepEqual(
    treeDiff(initial, treeOf(tree, ignore)),
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
    await planAndApply(resources, { host, layout: names, journal, emit }, { dryRun: false, emit });
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

test('PRE-03 HOST-12 SELinux enforcing, simulated by its sysfs file: "SELinux is enforcing on this host", the hint naming the supported hosts, nothing changed', async () => {
  // The installer reads /sys/fs/selinux/enforce, under --root the scratch tree's: here it holds
  // what an enforcing kernel shows there (this machine's kernel has no SELinux, nor has the e2e
  // host's, where this test simulated the same file on a tmpfs).
  mkdirSync(join(root, 'sys/fs/selinux'), { recursive: true });
  writeFileSync(join(root, 'sys/fs/selinux/enforce'), '1');
  const token = await issueToken(core);
  const asked = await requestsTo(core);
  await refused(
    /^oac-node: SELinux is enforcing on this host$\n {2}hint: The installer never changes SELinux settings\. Supported hosts: Debian 11, 12 and 13 on amd64, booted with systemd \(docs\/supported-hosts\.md\)\.$/m,
    () => runExe(install(core.core_url, CORE_ID), { stdin: `${token}\n` }),
    1,
  );
  assert.equal(await requestsTo(core), asked, 'refused before asking Core');
});

// Measured in the e2e host (Debian 12's docker.io): `systemctl stop docker.socket docker.service`
// leaves /run/docker.sock in place, a socket root:docker 0660 that refuses connections
// (docker.socket has no RemoveOnStop=), and the installer refused on the refused connection. Here
// the same socket is one whose listener was killed; without Docker at all there is no socket.
test('PRE-04 Docker stopped: "Docker Engine is not installed, or Docker is not running", nothing changed', async () => {
  const expected = /^oac-node: Docker Engine is not installed, or Docker is not running$/m;
  const run = async () =>
    runExe(install(core.core_url, CORE_ID), { stdin: `${await issueToken(core)}\n` });
  const socket = join(root, 'var/run/docker.sock');
  deadSocket(socket);
  const st = lstatSync(socket);
  assert.ok(st.isSocket() && (st.mode & 0o777) === 0o660 && st.gid === dockerGid(root));
  await refused(expected, run, 1);
  rmSync(socket);
  await refused(expected, run, 1); // not installed
});

test('PRE-04 a Docker socket of mode 0666 is refused, nothing changed; Docker not answering through it is said too', async () => {
  let connections = 0;
  const socket = await socketAt(join(root, 'var/run/docker.sock'), 0o666, (c) => {
    connections += 1;
    c.destroy();
  });
  try {
    // Issue #38: the preflight goes on past the mode to find the host's other problems; this
    // socket's listener closes every connection, so Docker's answers are missing too.
    await refused(
      /^oac-node: 2 problems stop this run; nothing was changed\n {2}\/var\/run\/docker\.sock must be owned by group docker with mode 0660 \(it is group docker, mode 0666\) \(.+\)\n {2}Docker Engine is not installed, or Docker is not running \(.+\)$/m,
      async () => runExe(install(core.core_url, CORE_ID), { stdin: `${await issueToken(core)}\n` }),
      1,
    );
    assert.ok(connections > 0, 'Docker was asked through it');
    assert.equal(lstatSync(join(root, 'var/run/docker.sock')).mode & 0o777, 0o666, 'not chmodded');
  } finally {
    await new Promise((resolve) => socket.close(resolve));
  }
});

test('PRE-05 microsandbox without a group-accessible /dev/kvm: "KVM is unavailable, or /dev/kvm must be group-accessible", nothing changed', async () => {
  const microsandbox = await startCore([
    ...['--release-dir', release.dir, '--installation-id', CORE_ID],
    ...['--provider', 'microsandbox'],
  ]);
  try {
    // Issue #38: listed with the host's other problems (the scratch tree has no glibc loader),
    // as its own line or one of the list's.
    const expected =
      /^(oac-node: | {2})KVM is unavailable, or \/dev\/kvm must be group-accessible( \(.+\))?$/m;
    const run = async () =>
      runExe(install(microsandbox.core_url, CORE_ID), {
        stdin: `${await issueToken(microsandbox)}\n`,
      });
    // No /dev/kvm at all, as in the e2e host (and on this machine).
    await refused(expected, run, 1);
    // A KVM device only root may open: root:kvm 0600 (the KVM package's udev rule sets 0660).
    // A device's content is not compared (reading it would open this machine's KVM).
    execFileSync('groupadd', ['--prefix', root, '--system', 'kvm']);
    const kvm = join(root, 'dev/kvm');
    mkdirSync(dirname(kvm), { recursive: true });
    execFileSync('mknod', ['-m', '0600', kvm, 'c', '10', '232']);
    const gid = /^kvm:[^:]*:(\d+):/m.exec(readFileSync(join(root, 'etc/group'), 'utf8'))?.[1];
    chownSync(kvm, 0, Number(gid));
    const device = () => {
      const st = lstatSync(kvm);
      return `${st.isCharacterDevice()} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid} ${st.rdev}`;
    };
    const was = device();
    assert.equal(was, `true 600 0:${gid} ${(10 << 8) | 232}`);
    await refused(expected, run, 1, { ignore: new RegExp(`${IGNORE.source}|^dev/kvm$`) });
    assert.equal(device(), was, 'the installer never changes device permissions');
  } finally {
    await microsandbox.stop();
  }
});

// Docker's CPUs and memory are what the installer compares with the sandbox size: a private
// real dockerd answers for them (test/helpers/private-dockerd.ts), reached through a stand-in
// /var/run/docker.sock on the scratch tree, root:docker 0660 as Docker's package makes it.
test('PRE-06 a specification larger than the host: "This host has N CPUs and M MiB of memory; …", nothing changed', async () => {
  await withTooLargeSpecification(0o660, async (dockerd) => {
    const info = dockerd.docker(['info', '--format', '{{.NCPU}} {{.MemTotal}}']);
    const [cpus, memory] = info.stdout.trim().split(' ').map(Number);
    assert.ok(cpus && memory, info.stderr);
    const mib = Math.floor(memory / (1024 * 1024));
    await refused(
      new RegExp(
        `^oac-node: This host has ${cpus} CPUs and ${mib} MiB of memory; each sandbox needs 4096 CPUs and \\d+ MiB$`,
        'm',
      ),
      async () => runExe(install(core.core_url, CORE_ID), { stdin: `${await issueToken(core)}\n` }),
    );
  });
});

test("PRE-06 PRE-09 DECL-06 issue #38 a preflight finding is a diagnostic of the plan: a sandbox larger than the host and a plan refusal (someone else's oac-node on PATH) are named in one run, and the dry run shows every step beside them; nothing changed", async () => {
  writeFileSync(join(root, 'usr/local/sbin/oac-node'), '#!/bin/sh\necho mine\n', { mode: 0o755 });
  await withTooLargeSpecification(0o660, async () => {
    const line = /^oac-node: 2 problems stop this run; nothing was changed$/m;
    const run = async (more: string[] = []) =>
      runExe([...install(core.core_url, CORE_ID), ...more], {
        stdin: `${await issueToken(core)}\n`,
      });
    const r = await refused(line, () => run());
    assert.match(r.stderr, /each sandbox needs 4096 CPUs/);
    assert.match(r.stderr, /usr\/local\/sbin\/oac-node is there, and oac-node's installer did not/);
    const dry = await refused(line, () => run(['--dry-run']));
    for (const row of [
      /^ {2}create +create system user oac-node /m,
      /^ {2}refuse +\/usr\/local\/sbin\/oac-node is there/m,
      /^ {2}create +write \/etc\/systemd\/system\/oac-node-/m,
      /^ {2}create +enable oac-node-/m,
    ])
      assert.match(dry.stdout, row, dry.stdout);
  });
});

/** Runs `body` while Core's sandbox needs 4096 CPUs and a private real dockerd answers through
 *  the scratch tree's /var/run/docker.sock, root:docker with `mode`; puts both back after. */
async function withTooLargeSpecification(
  mode: number,
  body: (dockerd: ReturnType<typeof privateDockerd>) => Promise<void>,
): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'oac-refusals-dockerd-'));
  const dockerd = privateDockerd(scratch);
  let socket: Server | undefined;
  const deployment = (await core.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
    specification: Record<string, unknown>;
  };
  const original = deployment.specification;
  try {
    await dockerd.start();
    socket = await dockerSocket(dockerd.host.replace(/^unix:\/\//, ''), mode);
    const changed = await core.coreApi('PUT', '/core/v1/sandbox/specification', {
      specification: { ...original, cpus: 4096 },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    await body(dockerd);
  } finally {
    await core.coreApi('PUT', '/core/v1/sandbox/specification', { specification: original });
    await new Promise((resolve) => (socket ? socket.close(resolve) : resolve(undefined)));
    await dockerd.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

test('PRE-09 issue #38 three problems of one host are named in one run, each with its hint, and nothing changed: a Docker socket of mode 0666, a sandbox larger than the host, a --checkpoint-root for Docker', async () => {
  // The audit's host: one run of the line named only the socket; fixing it and running again
  // named the size; a third run the option. A real dockerd answers through the 0666 socket.
  await withTooLargeSpecification(0o666, async () => {
    const args = [...install(core.core_url, CORE_ID), '--checkpoint-root', '/srv/checkpoints'];
    const r = await refused(
      /^oac-node: 3 problems stop this run; nothing was changed$/m,
      async () => runExe(args, { stdin: `${await issueToken(core)}\n` }),
      1,
    );
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 5, r.stderr); // the line, three problems, the hint
    assert.match(
      lines[1] ?? '',
      /^ {2}--checkpoint-root applies only to microsandbox nodes; this Core uses Docker \(Run the command without --checkpoint-root\.\)$/,
    );
    assert.match(
      lines[2] ?? '',
      /^ {2}\/var\/run\/docker\.sock must be owned by group docker with mode 0660 \(it is group docker, mode 0666\) \(.+\)$/,
    );
    assert.match(
      lines[3] ?? '',
      /^ {2}This host has \d+ CPUs and \d+ MiB of memory; each sandbox needs 4096 CPUs/,
    );
    assert.match(lines[4] ?? '', /^ {2}hint: Fix each of them, then run the command again\.$/);
  });
});

// PRE-07 needs a real Docker's answers and two real file systems: a private real dockerd in a
// private mount namespace (test/helpers/dockerd-namespace.ts) where a small tmpfs stands for a
// full disk, serving the scratch tree's /var/run/docker.sock; the installer runs in that mount
// namespace (nsenter -m), so it measures the same tmpfs, and this machine's mounts stay as they
// are. The tree is compared as the installer saw it, the tmpfs included.
test('PRE-07 too little free disk under /var/lib/oac-node is refused before downloading, nothing changed', async () => {
  const home = join(root, 'var/lib/oac-node');
  mkdirSync(home, { recursive: true }); // the tmpfs's mount point, as the e2e test made it
  await withDockerd(`mount -t tmpfs -o size=256k tmpfs ${shq(home)}`, undefined, async (d) => {
    assert.equal(d.sh(`df --output=size -k ${shq(home)} | tail -1`).trim(), '256');
    await refused(
      /^oac-node: This host has 0 MiB free under \/var\/lib\/oac-node; the node files need \d+ MiB$/m,
      async () =>
        runExe(install(core.core_url, CORE_ID), {
          stdin: `${await issueToken(core)}\n`,
          prefix: d.enter([]),
        }),
      1,
      { tree: d.view(root) },
    );
  });
});

// The image's layers land where Docker keeps its data, often another file system than the
// node's home (the guide: the image is about 1.5 GB unpacked). Here the daemon's data root is
// /var/lib/docker, Docker's default, on a tmpfs that is full, while /var/lib/oac-node has room.
// (In the daemon's namespace /var/lib is a tmpfs of its own first: this machine's /var/lib may
// have no docker directory to mount on, and nothing there is created.)
test("PRE-07 too little free space in Docker's storage is refused before downloading, nothing changed", async () => {
  const setup = [
    'mount -t tmpfs -o mode=0755 tmpfs /var/lib',
    'mkdir -m 0711 /var/lib/docker',
    'mount -t tmpfs -o size=64m,mode=0711 tmpfs /var/lib/docker',
  ].join(' && ');
  await withDockerd(setup, '/var/lib/docker', async (d) => {
    const info = d.docker(['info', '--format', '{{.DockerRootDir}}']);
    assert.equal(info.stdout.trim(), '/var/lib/docker', info.stderr);
    const free = 'df --output=avail -B1 /var/lib/docker | tail -1';
    d.sh(`fallocate -l "$(${free})" /var/lib/docker/filler`);
    assert.equal(d.sh(free).trim(), '0', "Docker's storage is full");
    await refused(
      /^oac-node: This host has 0 MiB free under \/var\/lib\/docker, where Docker keeps images; the Runtime image needs \d+ MiB$/m,
      async () =>
        runExe(install(core.core_url, CORE_ID), {
          stdin: `${await issueToken(core)}\n`,
          prefix: d.enter([]),
        }),
      1,
      { tree: d.view(root) },
    );
  });
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
async function dockerSocket(target: string, mode = 0o660): Promise<Server> {
  return socketAt(join(root, 'var/run/docker.sock'), mode, (client) => {
    const upstream = createConnection(target);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
}

/** A listening socket at `path`, root:docker with `mode`. */
async function socketAt(
  path: string,
  mode: number,
  onConnection: (client: Socket) => void,
): Promise<Server> {
  mkdirSync(dirname(path), { recursive: true });
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chownSync(path, 0, dockerGid(root));
  chmodSync(path, mode);
  return server;
}

/** A socket at `path`, root:docker 0660, whose listener was killed: a connection to it is
 *  refused, as to the one a stopped docker.socket leaves. */
function deadSocket(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const listen = `require('net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))`;
  const r = spawnSync(process.execPath, ['-e', listen, path], { encoding: 'utf8' });
  assert.equal(r.signal, 'SIGKILL', r.stderr);
  chownSync(path, 0, dockerGid(root));
  chmodSync(path, 0o660);
}

/** Runs `body` with a private dockerd in a mount namespace of its own (`setup` run there first;
 *  data root `dataRoot`, or one in its scratch directory) that serves the scratch tree's
 *  /var/run/docker.sock, root:docker 0660 as Docker's package makes it; then checks that its
 *  images and networks are as they were (the Docker lists of the e2e snapshot). */
async function withDockerd(
  setup: string,
  dataRoot: string | undefined,
  body: (d: DockerdInNamespace) => Promise<void>,
): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'oac-refusals-dockerd-'));
  const socket = join(root, 'var/run/docker.sock');
  mkdirSync(dirname(socket), { recursive: true });
  let dockerd: DockerdInNamespace | undefined;
  try {
    const d = await dockerdInNamespace(scratch, {
      socket,
      setup,
      ...(dataRoot === undefined ? {} : { dataRoot }),
    });
    dockerd = d;
    chownSync(socket, 0, dockerGid(root));
    chmodSync(socket, 0o660);
    const lists = () =>
      [
        ['image', 'ls', '-a', '--no-trunc', '--format', '{{.ID}} {{.Repository}}:{{.Tag}}'],
        ['network', 'ls', '--format', '{{.Name}} {{.Driver}} {{.Scope}}'],
      ].map((args) => {
        const r = d.docker(args);
        assert.equal(r.status, 0, r.stderr);
        return r.stdout;
      });
    const initial = lists();
    await body(d);
    assert.deepEqual(lists(), initial, "PRE-09 Docker's images and networks are as they were");
  } finally {
    await dockerd?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

test("HOST-08 DECL-01 issue #23: on a new host the node account's part is planned before any write: a node directory's path taken is refused with root's own refusals, all listed, nothing changed", async () => {
  // A state directory left behind (its record lost) whose files directory is a file, and
  // someone's own oac-node on PATH: the first is the node half's to find, the second root's.
  const state = join(root, layout(CORE_ID).stateDir);
  mkdirSync(state, { recursive: true });
  writeFileSync(join(state, 'files'), 'not a directory');
  writeFileSync(join(root, 'usr/local/sbin/oac-node'), '#!/bin/sh\necho mine\n', { mode: 0o755 });
  const r = await refusedNewInstall(/^oac-node: 2 problems stop this run; nothing was changed$/m);
  assert.match(
    r.stderr,
    /\/usr\/local\/sbin\/oac-node is there, and oac-node's installer did not write it/,
  );
  assert.match(r.stderr, /\/files exists and is not a directory/);
});

/** The line's install on the scratch tree, Docker answering (a private daemon), refused with
 *  `expected` and exit 1, the tree unchanged: a refusal of the plan, past every preflight. */
async function refusedNewInstall(expected: RegExp): Promise<Ran> {
  let ran: Ran | undefined;
  await withDockerd('true', undefined, async (d) => {
    ran = await refused(
      expected,
      async () =>
        runExe(install(core.core_url, CORE_ID), {
          stdin: `${await issueToken(core)}\n`,
          prefix: d.enter([]),
        }),
      1,
      { tree: d.view(root) },
    );
  });
  return ran as Ran;
}

for (const [where, dir, expected] of [
  ['masked (systemctl mask)', 'etc/systemd/system', 'is masked \\('],
  [
    'masked until the next boot (systemctl mask --runtime)',
    'run/systemd/system',
    'is masked until the next boot \\(',
  ],
] as const)
  test(`REL-01 a new host whose node unit is ${where}: refused in the plan, the hint naming systemctl unmask, nothing changed`, async () => {
    const unit = layout(CORE_ID).unitName;
    mkdirSync(join(root, dir), { recursive: true });
    symlinkSync('/dev/null', join(root, dir, unit));
    const escaped = unit.replaceAll('.', '\\.');
    const line = new RegExp(`^oac-node: ${escaped} ${expected}/${dir}/`, 'm');
    const r = await refusedNewInstall(line);
    assert.match(
      r.stderr,
      // Run as root, not through sudo: the hint's command has no sudo in front.
      new RegExp(
        `hint: .* run systemctl unmask ${dir.startsWith('run') ? '--runtime ' : ''}${escaped},`,
      ),
    );
  });

test('UPG-01 an older installer on a host whose record names a newer program is refused in one line before anything is read or changed; --allow-downgrade goes past that check', async () => {
  const names = layout(CORE_ID);
  const now = new Date().toISOString();
  const record = {
    format: 2,
    installation_id: CORE_ID,
    core_url: core.core_url,
    created_at: now,
    updated_at: now,
    inputs: { provider: 'docker', group: 'docker', checkpoint_root: null },
    resources: {
      program: {
        kind: 'file',
        name: names.program,
        ownership: 'owned',
        props: { mode: 0o755, sha256: 'ab'.repeat(32), version: '99.0.0' },
      },
    },
  };
  mkdirSync(join(root, 'etc/oac-node'), { recursive: true, mode: 0o700 });
  writeFileSync(join(root, names.journal), JSON.stringify(record), { mode: 0o600 });
  const token = await issueToken(core);
  const asked = await requestsTo(core);
  const r = await refused(
    /^oac-node: This host's node program is oac-node 99\.0\.0, newer than this installer \(\d+\.\d+\.\d+\S*\); nothing was changed$/m,
    () => runExe(install(core.core_url, CORE_ID), { stdin: `${token}\n` }),
    1,
  );
  assert.match(r.stderr, /^ {2}hint: .*--allow-downgrade/m);
  assert.equal(await requestsTo(core), asked, 'nothing reached Core');
  // Issue #38: what the records decide is said at once: the downgrade and, with no token on
  // standard input for a node that never enrolled, the missing token; Core still not asked.
  const both = await refused(
    /^oac-node: 2 problems stop this run; nothing was changed$/m,
    () => runExe(install(core.core_url, CORE_ID), { stdin: '' }),
    1,
  );
  assert.match(both.stderr, /^ {2}This host's node program is oac-node 99\.0\.0, newer than/m);
  assert.match(both.stderr, /^ {2}[^\n]*enrollment token[^\n]*$/im);
  assert.equal(await requestsTo(core), asked, 'nothing reached Core either');
  // Asked for: the run goes on (and stops at the next check this scratch tree fails: Docker).
  const allowed = await runExe([...install(core.core_url, CORE_ID), '--allow-downgrade'], {
    stdin: `${await issueToken(core)}\n`,
  });
  assert.doesNotMatch(allowed.stderr, /newer than this installer/, allowed.stderr);
  assert.match(
    allowed.stderr,
    /^oac-node: Docker Engine is not installed, or Docker is not running$/m,
  );
});
