// PRE-01…09 in a real host: each failure provoked for real, each answered by the guide's one
// line, a non-zero exit, and a host whose users, groups, units, records, node files and Docker
// networks and images are exactly as before (the snapshot of issue #5).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bootHost, type E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { startCoreInHost, type CoreInHost } from './helpers/core-in-host.ts';
import { fromLine } from './helpers/install-line.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
let host: E2eHost;
let core: CoreInHost;

before(async () => {
  host = await bootHost();
  core = await startCoreInHost(host, ['--release-dir', await release.dir()]);
});
after(async () => {
  await core.stop();
  await host.stop();
});

async function line(): Promise<string> {
  const r = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
  return (r.body as { command: string }).command;
}

/** Runs the line and checks it failed with `expected` and left the host as it was. */
async function refused(expected: RegExp, command?: string): Promise<void> {
  const before = await host.snapshot();
  const run = await host.exec(['sh'], {
    stdin: `${command ?? (await line())}\n`,
    timeoutMs: 300_000,
  });
  assert.notEqual(run.status, 0, run.stdout);
  assert.match(`${run.stdout}\n${run.stderr}`, expected);
  assert.deepEqual(
    diffSnapshots(before, await host.snapshot()),
    [],
    'PRE-09 the host is unchanged',
  );
}

test('PRE-04 Docker stopped: "Docker Engine is not installed, or Docker is not running", nothing changed', async () => {
  await host.shOk('systemctl stop docker.socket docker.service');
  try {
    await refused(/^oac-node: Docker Engine is not installed, or Docker is not running$/m);
  } finally {
    await host.shOk('systemctl start docker.service');
  }
});

test('PRE-04 a Docker socket of mode 0666 is refused, nothing changed', async () => {
  await host.shOk('chmod 0666 /var/run/docker.sock');
  try {
    await refused(
      /^oac-node: \/var\/run\/docker\.sock must be owned by group docker with mode 0660 \(it is group docker, mode 0666\)$/m,
    );
  } finally {
    await host.shOk('chmod 0660 /var/run/docker.sock');
  }
});

test('PRE-06 a specification larger than the host: "This host has N CPUs and M MiB of memory; …", nothing changed', async () => {
  const deployment = (await core.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
    specification: Record<string, unknown>;
  };
  const original = deployment.specification;
  await core.coreApi('PUT', '/core/v1/sandbox/specification', {
    specification: { ...original, cpus: 4096 },
  });
  try {
    await refused(
      /^oac-node: This host has \d+ CPUs and \d+ MiB of memory; each sandbox needs 4096 CPUs and \d+ MiB$/m,
    );
  } finally {
    await core.coreApi('PUT', '/core/v1/sandbox/specification', { specification: original });
  }
});

test('PRE-07 too little free disk under /var/lib/oac-node is refused before downloading, nothing changed', async () => {
  await host.shOk(
    'mkdir -p /var/lib/oac-node && mount -t tmpfs -o size=256k tmpfs /var/lib/oac-node',
  );
  try {
    await refused(
      /^oac-node: This host has 0 MiB free under \/var\/lib\/oac-node; the node files need \d+ MiB$/m,
    );
  } finally {
    await host.shOk('umount /var/lib/oac-node && rmdir /var/lib/oac-node');
  }
});

// The image's layers land where Docker keeps its data, often another file system than the
// node's home (the guide: the image is about 1.5 GB unpacked). Here Docker's data-root is a
// tmpfs that is all but full, while /var/lib/oac-node has room.
test("PRE-07 too little free space in Docker's storage is refused before downloading, nothing changed", async () => {
  await host.shOk(
    [
      'systemctl stop docker.socket docker.service',
      'mount -t tmpfs -o size=64m tmpfs /var/lib/docker',
      // Docker was restarted by the tests before: past systemd's start rate limit.
      'systemctl reset-failed docker.service docker.socket',
      'systemctl start docker.service',
      'docker info >/dev/null',
      'fallocate -l $(( $(df --output=avail -B1 /var/lib/docker | tail -1) - 65536 )) /var/lib/docker/filler',
    ].join(' && '),
  );
  try {
    await refused(
      /^oac-node: This host has 0 MiB free under \/var\/lib\/docker, where Docker keeps images; the Runtime image needs \d+ MiB$/m,
    );
  } finally {
    await host.shOk(
      'systemctl stop docker.socket docker.service && umount /var/lib/docker && systemctl reset-failed docker.service docker.socket && systemctl start docker.service',
    );
  }
});

test('PRE-01 not root: the installer stops before reading the token, nothing changed', async () => {
  // The installer binary itself, called directly by an unprivileged user (the line would use
  // sudo): it must stop before it reads the token.
  const copy = await host.sh(
    `install -d -m 0755 /opt/bin && curl -fsS ${core.coreUrl}/node-install/oac-node.gz | gzip -d > /opt/bin/oac-node && chmod 0755 /opt/bin/oac-node`,
  );
  assert.equal(copy.status, 0, copy.stderr);
  const before = await host.snapshot();
  const run = await host.exec(
    ['/opt/bin/oac-node', 'install', '--core-url', core.coreUrl, '--installation-id', 'x'],
    {
      user: 'operator',
      stdin: 'not-a-real-token\n',
    },
  );
  assert.equal(run.status, 1);
  assert.match(run.stderr, /^oac-node: Node installation and removal require root$/m);
  assert.deepEqual(diffSnapshots(before, await host.snapshot()), []);
});

// The pasted line starts the installer with `env -i` (SEC-07), so a variable exported in the
// operator's shell never reaches it; PRE-02 is the installer's own refusal, for whoever runs it
// by hand (`sudo -E`, a wrapper script): the same executable the line downloads, run directly.
test('PRE-02 a token in the environment is refused, nothing changed', async () => {
  const r = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
  const { command, token } = r.body as { command: string; token: string };
  const installerUrl = /'(http:\/\/[^']+\/node-install\/oac-node\.gz)'/.exec(command)?.[1] ?? '';
  const { installationId } = fromLine(command);
  await host.shOk(`curl -sSf '${installerUrl}' | gzip -d >/tmp/pre02 && chmod 0700 /tmp/pre02`);
  const before = await host.snapshot();
  const run = await host.exec(
    ['/tmp/pre02', 'install', '--core-url', core.coreUrl, '--installation-id', installationId],
    { stdin: `${token}\n`, env: { OAC_ENROLLMENT_TOKEN: token } },
  );
  await host.shOk('rm -f /tmp/pre02');
  assert.notEqual(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(
    run.stderr,
    /^oac-node: The enrollment token must come on standard input, not from the environment$/m,
  );
  assert.ok(!`${run.stdout}${run.stderr}`.includes(token), 'SEC-03 the token is not printed');
  assert.deepEqual(
    diffSnapshots(before, await host.snapshot()),
    [],
    'PRE-09 the host is unchanged',
  );
});

test('PRE-08 a command naming another Core address is refused with the guide line, nothing changed', async () => {
  const command = (await line()).replace(
    /--core-url '([^']+)'/,
    (_m, url: string) => `--core-url '${url.replace('127.0.0.1', '127.0.0.2')}'`,
  );
  await refused(/^oac-node: Core's public URL changed after this command was generated$/m, command);
});

test('PRE-05 microsandbox without a group-accessible /dev/kvm: "KVM is unavailable, or /dev/kvm must be group-accessible", nothing changed', async () => {
  const microsandbox = await startCoreInHost(host, [
    '--release-dir',
    await release.dir(),
    '--provider',
    'microsandbox',
  ]);
  try {
    const issued = await microsandbox.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
    await refused(
      /^oac-node: KVM is unavailable, or \/dev\/kvm must be group-accessible$/m,
      (issued.body as { command: string }).command,
    );
  } finally {
    await microsandbox.stop();
  }
});

test('PRE-03 SELinux enforcing, simulated by its sysfs file: "SELinux is enforcing on this host", nothing changed', async () => {
  // The kernel has no SELinux: nspawn leaves /sys/fs/selinux an empty directory. The line runs
  // in a private mount namespace of the host where a tmpfs there holds enforce = 1, so the
  // installer reads exactly what an enforcing kernel shows; the host's own /sys is untouched.
  const simulated =
    'mount -t tmpfs -o mode=0755 tmpfs /sys/fs/selinux && echo 1 > /sys/fs/selinux/enforce && exec sh';
  const before = await host.snapshot();
  const run = await host.exec(
    ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', simulated],
    {
      stdin: `${await line()}\n`,
      timeoutMs: 300_000,
    },
  );
  assert.notEqual(run.status, 0, run.stdout);
  assert.match(run.stderr, /^oac-node: SELinux is enforcing on this host$/m);
  assert.deepEqual(
    diffSnapshots(before, await host.snapshot()),
    [],
    'PRE-09 the host is unchanged',
  );
  assert.equal(
    (await host.sh('test -e /sys/fs/selinux/enforce && echo present || echo absent')).stdout.trim(),
    'absent',
    "the host's own /sys never changed",
  );
});
