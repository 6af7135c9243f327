// SEC-13 OPS-07 (issue #40): `oac-node diagnose` in a real host. With the service running, and
// again with the service and Docker stopped and Core down, it writes a bundle whose manifest
// names every file (and what could not be collected); the node's credential written into the
// service's own log, the same credential base64-encoded there, and the proxy password in the env
// file are in no file of it, in no encoding; a secret where no collector masks it stops the
// bundle, naming the file; /etc/oac-node read-only does not; each time the host is the same
// before and after, the bundle aside.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { findSecrets } from '../../support/secret-scan.ts';
import { withInstalledHost } from './harness/installed.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import type { E2eHost } from './harness/host.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
const PASSWORD = 'Pr0xy-s3cret-word';

interface Manifest {
  files: Array<{ name: string; masked: string[] }>;
  missing: Array<{ name: string; reason: string }>;
}

/** Runs diagnose in the host; its bundle's files, read on this machine, and its manifest. */
async function diagnoseIn(host: E2eHost, name: string) {
  const run = await host.exec(['oac-node', 'diagnose', '--out', `/root/${name}`, '--json']);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'oac-e2e-diagnose-'));
  try {
    const archive = join(dir, name);
    writeFileSync(archive, Buffer.from(await host.shOk(`base64 -w0 /root/${name}`), 'base64'));
    execFileSync('tar', ['-xzf', archive, '-C', dir]);
    const files = readdirSync(dir)
      .filter((f) => f !== name)
      .map((f) => ({ name: f, data: readFileSync(join(dir, f)) }));
    return { files, manifest: JSON.parse(run.stdout) as Manifest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('SEC-13 OPS-07 diagnose with the node running, then with the service and Docker stopped and Core down: every file named, no secret in any, the host unchanged', async () => {
  await withInstalledHost(release, async ({ host, core, line }) => {
    const id = line.installationId;
    const unit = `oac-node-${id}.service`;
    const identity = JSON.parse(
      await host.shOk(`cat /var/lib/oac-node/.oac/nodes/${id}/identity.json`),
    ) as { credential: string };
    const credential = identity.credential;
    // Planted: the proxy password in the env file, and the credential (raw and base64) in the
    // service's own log (written from inside the unit's cgroup, so journalctl -u shows it).
    await host.shOk(
      `printf '%s\\n' 'https_proxy="http://alice:${PASSWORD}@proxy.invalid:3128"' > /etc/oac-node/${id}.env`,
    );
    const b64 = Buffer.from(`Basic ${credential}`).toString('base64');
    // journald names the unit from the sender's cgroup as it reads the message: tried again
    // until the unit's own log shows it. `grep -F --`: a credential may begin with `-`.
    const plant = `cg=$(systemctl show -p ControlGroup --value ${unit}) && sh -c 'for d in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified /sys/fs/cgroup; do [ -d "$d$0" ] && echo $$ > "$d$0/cgroup.procs"; done; printf "%s\\n" "token ${credential}" "auth ${b64}" | systemd-cat -t oac-node; sleep 1' "$cg"`;
    await host.shOk(
      `for i in 1 2 3 4 5; do ${plant}; journalctl --sync; journalctl -u ${unit} -o cat | grep -qF -- '${credential}' && exit 0; done; exit 1`,
    );
    const secrets = [
      { kind: 'credential', value: credential },
      { kind: 'password', value: PASSWORD },
    ];
    const before = await host.snapshot();

    const running = await diagnoseIn(host, 'running.tar.gz');
    const names = running.files.map((f) => f.name).sort();
    assert.deepEqual(names, [...running.manifest.files.map((f) => f.name), 'MANIFEST.json'].sort());
    for (const file of [
      'status.json',
      'record.json',
      'unit.service',
      'service-log.txt',
      'systemctl-show.txt',
    ])
      assert.ok(names.includes(file), file);
    const log = running.manifest.files.find((f) => f.name === 'service-log.txt');
    assert.deepEqual(log?.masked, ["the node's credential"], 'masked in the log, and said');
    assert.deepEqual(findSecrets(running.files, secrets), [], 'no secret in any file');
    const answered = JSON.parse(
      running.files.find((f) => f.name === 'core.json')?.data.toString() ?? '{}',
    ) as { answered?: boolean; clock_offset_seconds?: number };
    assert.equal(answered.answered, true, 'Core answers, asked the node way');
    assert.ok(Math.abs(answered.clock_offset_seconds ?? 99) <= 2, 'the clock offset from its Date');
    await host.shOk('rm /root/running.tar.gz');
    assert.deepEqual(diffSnapshots(before, await host.snapshot()), [], 'the host unchanged');

    // A secret where no collector masks it (a comment in the unit file): no bundle, the file named.
    const unitFile = `/etc/systemd/system/${unit}`;
    await host.shOk(`cp -p ${unitFile} /root/unit.keep && echo '# ${credential}' >> ${unitFile}`);
    const refused = await host.exec(['oac-node', 'diagnose', '--out', '/root/refused.tar.gz']);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /unit\.service/);
    assert.doesNotMatch(`${refused.stdout}${refused.stderr}`, new RegExp(credential));
    assert.equal((await host.sh('test -e /root/refused.tar.gz')).status, 1, 'nothing written');
    await host.shOk(`mv /root/unit.keep ${unitFile}`);
    assert.deepEqual(diffSnapshots(before, await host.snapshot()), [], 'the host unchanged');

    await host.shOk(`systemctl stop ${unit} docker.service docker.socket`);
    await core.stop();
    // /etc/oac-node read-only (a read-only /etc, an image): the bundle is made all the same.
    await host.shOk('mount --bind /etc/oac-node /etc/oac-node');
    await host.shOk('mount -o remount,bind,ro /etc/oac-node');
    const stopped = await host.snapshot();
    const down = await diagnoseIn(host, 'down.tar.gz');
    await host.shOk('umount /etc/oac-node');
    assert.ok(
      down.manifest.missing.some((m) => m.name === 'docker.txt'),
      JSON.stringify(down.manifest.missing),
    );
    assert.ok(
      down.files.some((f) => f.name === 'status.json'),
      'status says what it could',
    );
    assert.deepEqual(findSecrets(down.files, secrets), []);

    await host.shOk('rm /root/down.tar.gz');
    assert.deepEqual(diffSnapshots(stopped, await host.snapshot()), [], 'unchanged, stopped too');
  });
});
