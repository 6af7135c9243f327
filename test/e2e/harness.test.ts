// The e2e harness itself (docs/e2e-hosts.md): a throwaway Debian 12 host with systemd as PID 1
// and a real Docker engine, fresh at every boot, reachable on its veth, and gone after stop().
// The install tests (issues #4 and #5) stand on each of these.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildRelease } from '../../fixtures/release/build.ts';
import { writeFakeDist } from '../../fixtures/release/fake-dist.ts';
import { bootHost, type E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';

describe('e2e harness', () => {
  let work: string | undefined;
  let first: E2eHost | undefined;
  let image: { file: string; reference: string; id: string };

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'oac-e2e-harness-'));
    const dist = await writeFakeDist(join(work, 'dist'), `e2e-harness-${process.pid}`);
    const built = await buildRelease({ ...dist, outDir: join(work, 'release'), version: '0.0.0' });
    const file = built.manifest.files.find((f) => f.kind === 'runtime-image');
    assert.ok(file?.image, 'the release has a Runtime image');
    image = { file: file.name, reference: file.image.reference, id: file.image.id };
    first = await bootHost({ binds: [{ source: built.outDir, target: '/opt/release' }] });
  });

  after(async () => {
    await first?.stop();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  const host = (): E2eHost => {
    assert.ok(first, 'the first host booted');
    return first;
  };

  it('e2e harness: systemd is PID 1 and the host reached running', async () => {
    assert.equal((await host().shOk('cat /proc/1/comm')).trim(), 'systemd');
    assert.equal((await host().shOk('systemctl is-system-running')).trim(), 'running');
    const enabled = await host().shOk('systemctl is-enabled docker.service');
    assert.equal(enabled.trim(), 'enabled');
    assert.equal((await host().shOk('systemctl is-active docker.service')).trim(), 'active');
  });

  it('e2e harness: Docker inside runs an image loaded without any registry', async () => {
    const loaded = await host().shOk(`docker load -i /opt/release/${image.file}`);
    assert.match(loaded, new RegExp(`Loaded image: ${image.reference.replace(/\./g, '\\.')}`));
    const id = await host().shOk(`docker image inspect --format '{{.Id}}' ${image.reference}`);
    assert.equal(id.trim(), image.id);
    const out = await host().shOk(
      `docker run --rm --network none --memory 64m --cpus 1 ${image.reference} busybox echo hello`,
    );
    assert.equal(out, 'hello\n');
  });

  it('e2e harness: useradd inside changes the host, never this machine', async () => {
    const user = `e2e-smoke-${process.pid}`;
    await host().shOk(`useradd --system --no-create-home --shell /usr/sbin/nologin ${user}`);
    assert.match(await host().shOk(`getent passwd ${user}`), new RegExp(`^${user}:`));
    const here = spawnSync('getent', ['passwd', user], { encoding: 'utf8' });
    assert.equal(here.status, 2, `this machine has no ${user}: ${here.stdout}`);
  });

  it('e2e harness: the host reaches a server bound on the host-side veth address', async () => {
    const seen: string[] = [];
    const server: Server = createServer((req, res) => {
      seen.push(req.socket.remoteAddress ?? '');
      res.end(`hello from ${req.url}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, host().hostAddress, resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const out = await host().shOk(
        `curl -fsS --max-time 10 http://${host().hostAddress}:${port}/x`,
      );
      assert.equal(out, 'hello from /x\n');
      assert.deepEqual(seen, [host().address]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('e2e harness: operator is a non-root user who may sudo without a password', async () => {
    const as = { user: 'operator' };
    assert.equal((await host().shOk('id -un; id -u', as)).trim(), 'operator\n1000');
    assert.equal(
      (await host().shOk('echo "$HOME"; pwd', as)).trim(),
      '/home/operator\n/home/operator',
    );
    assert.equal((await host().shOk('sudo -n id -un', as)).trim(), 'root');
    const r = await host().exec(['sudo', '-n', 'true'], as);
    assert.deepEqual([r.status, r.stderr], [0, '']);
  });

  it('e2e harness: exec passes stdin and env, and reports exit status', async () => {
    const r = await host().exec(['sh', '-c', 'read -r line; echo "$line $GREETING"; exit 3'], {
      stdin: 'from stdin\n',
      env: { GREETING: 'and env' },
    });
    assert.deepEqual(r, { status: 3, stdout: 'from stdin and env\n', stderr: '' });
    // The test's own environment stays out.
    const env = await host().shOk('env | cut -d= -f1 | sort | tr "\\n" " "');
    assert.equal(env, 'HOME LOGNAME PATH PWD SHELL USER ');
    const slow = await host().exec(['sleep', '30'], { timeoutMs: 1000 });
    assert.equal(slow.status, 124, 'timeout ends the command inside');
  });

  it('e2e harness: a snapshot differs from the one before exactly in the change made', async () => {
    const before = await host().snapshot();
    assert.equal(diffSnapshots(before, await host().snapshot()).length, 0, 'stable when idle');
    assert.equal(before.trees['/etc/oac-node'], null);
    assert.ok(before.enabledUnits.includes('docker.service'), before.enabledUnits.join(' '));
    assert.ok(before.dockerNetworks?.includes('bridge bridge local'));

    await host().shOk(
      [
        'useradd --system --no-create-home --shell /usr/sbin/nologin --user-group snap-user',
        'install -d -m 0700 /etc/oac-node',
        'printf x > /etc/oac-node/a.json && chmod 0600 /etc/oac-node/a.json',
        'docker network create --internal snap-net >/dev/null',
      ].join(' && '),
    );
    const changed = await host().snapshot();
    const diff = diffSnapshots(before, changed);
    const account = (file: string): RegExp => new RegExp(`^${file} \\+snap-user:`);
    assert.equal(diff.length, 7, diff.join('\n'));
    for (const file of ['/etc/passwd', '/etc/group', '/etc/shadow', '/etc/gshadow']) {
      assert.ok(
        diff.some((line) => account(file).test(line)),
        `${file} in\n${diff.join('\n')}`,
      );
    }
    assert.ok(diff.includes('/etc/oac-node: added'), diff.join('\n'));
    assert.ok(diff.includes('/etc/oac-node/a.json: added file 600 root:root'), diff.join('\n'));
    assert.ok(diff.includes('docker network +snap-net bridge local'), diff.join('\n'));
    assert.equal(
      changed.trees['/etc/oac-node']?.['a.json']?.sha256,
      '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881', // sha256("x")
    );

    await host().shOk(
      'docker network rm snap-net >/dev/null && rm -r /etc/oac-node && userdel snap-user',
    );
    assert.deepEqual(diffSnapshots(before, await host().snapshot()), []);
  });

  it('e2e harness: a fresh host per boot, and no trace of a stopped one', async () => {
    const old = host();
    await old.shOk('echo first > /root/marker && useradd left-behind');
    await old.stop();
    first = undefined;
    assert.ok(!existsSync(old.dir), `${old.dir} removed`);
    assert.ok(!existsSync(`/sys/class/net/ve-${old.name}`), 'veth removed');
    assert.ok(!existsSync(`/run/systemd/nspawn/propagate/${old.name}`), 'propagate dir removed');
    const cgroups = spawnSync(
      'find',
      ['/sys/fs/cgroup', '-mindepth', '2', '-maxdepth', '6', '-path', `*/oac-e2e/${old.name}`],
      { encoding: 'utf8' },
    );
    assert.equal(cgroups.stdout, '', 'its cgroups removed');
    assert.ok(!existsSync(`/proc/${old.nspawnPid}`), 'systemd-nspawn ended');
    assert.ok(!existsSync(`/proc/${old.leaderPid}`), "the host's systemd ended");

    const second = await bootHost();
    try {
      assert.notEqual(second.name, old.name);
      const r = await second.sh('cat /root/marker');
      assert.notEqual(r.status, 0, 'the marker of the first boot is absent');
      assert.equal((await second.sh('getent passwd left-behind')).status, 2);
      assert.equal((await second.shOk(`docker image ls -q`)).trim(), '', 'no image of the first');
    } finally {
      await second.stop();
    }
  });
});
