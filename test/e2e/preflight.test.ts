// PRE-03…09 in a real host: each failure provoked for real, each answered by the guide's one
// line, a non-zero exit, and a host whose users, groups, units, records, node files and Docker
// networks and images are exactly as before (the snapshot of issue #5). The refusals that need
// no booted host (PRE-01 not root, PRE-06 a host too small, PRE-08 another Core address) run at
// the host tier, in test/host/refusals.test.ts, and PRE-02 (a token in the environment) is a row
// of test/host/hostile-rows.ts (issue #28 item 3).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bootHost, type E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { startCoreInHost, type CoreInHost } from './helpers/core-in-host.ts';
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
