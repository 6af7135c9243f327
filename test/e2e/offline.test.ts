// Issue #14 (b), OFFLINE-01 end to end: `oac-node bundle` runs as an unprivileged user on this
// machine against a reference Core of the same release; the bundle is copied into a throwaway
// host whose reference Core then serves no file at all (every console and release file armed
// to answer 503, and its request log checked: nothing asked for). The bundle's variant of the
// pasted line installs a connected, ready node from the bundle alone, reruns it unchanged and
// uninstalls it; a damaged bundle is refused with the host unchanged.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { renderInstallCommand } from '../../installer/one-liner.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { startCore } from '../helpers/core.ts';
import { buildRelease } from '../../fixtures/release/build.ts';
import { listNodes } from './harness/core-nodes.ts';
import { bootWithCore, type CoreInHost } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { removeAndUninstall } from './helpers/remove-node.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
const work = mkdtempSync(join(tmpdir(), 'oac-e2e-bundles-'));
after(() => rmSync(work, { recursive: true, force: true }));

interface Logged {
  server: string;
  path: string;
}

function bundleCli(consoleUrl: string, releaseId: string, out: string): string {
  return execFileSync(
    'setpriv',
    [
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      requireExecutable(),
      'bundle',
      '--console-url',
      consoleUrl,
      '--release',
      releaseId,
      '--out',
      out,
    ],
    { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } },
  );
}

async function apiAndFileRequests(core: CoreInHost): Promise<Logged[]> {
  return (await core.coreApi('GET', '/__fixture/requests')).body as Logged[];
}

test('OFFLINE-01 DECL-05 issue #14 (b): a host without the console files installs from a bundle, reruns unchanged (also through a saved plan naming the bundle), uninstalls; a damaged bundle is refused', async () => {
  const dir = await release.dir();
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    release: string;
    files: Array<{ name: string; kind: string }>;
  };
  // The release Core's configuration moves to later: same executable, another version.
  const exe = requireExecutable();
  const nextDir = join(work, 'next-release');
  const next = await buildRelease({
    executable: exe,
    executableGz: `${exe}.gz`,
    outDir: nextDir,
    version: '9.9.9',
  });
  const local = await startCore(['--release-dir', dir, '--extra-release-dir', nextDir]);
  let printed: string;
  let nextPrinted: string;
  try {
    chmodSync(work, 0o777);
    printed = bundleCli(local.console_url, manifest.release, join(work, 'release.bundle'));
    nextPrinted = bundleCli(local.console_url, next.manifest.release, join(work, 'next.bundle'));
  } finally {
    await local.stop();
  }
  const sha256 = /^SHA-256: ([0-9a-f]{64})$/m.exec(printed)?.[1] ?? '';
  const manifestSha256 = /^Manifest SHA-256: ([0-9a-f]{64})$/m.exec(printed)?.[1] ?? '';
  assert.match(manifestSha256, /^[0-9a-f]{64}$/);
  assert.equal(
    execFileSync('sha256sum', [join(work, 'release.bundle')], { encoding: 'utf8' }).split(' ')[0],
    sha256,
    'the printed SHA-256 is the file',
  );
  // The damaged copy: one byte of the Runtime image flipped.
  const bytes = readFileSync(join(work, 'release.bundle'));
  const image = manifest.files.find((f) => f.kind === 'runtime-image')?.name ?? '';
  // The image's tar header: its name at the start of a 512-byte block (the manifest names it too).
  let header = bytes.indexOf(Buffer.from(image));
  while (header % 512 !== 0) header = bytes.indexOf(Buffer.from(image), header + 1);
  const at = header + 512 + 4096;
  bytes[at] = (bytes[at] ?? 0) ^ 0xff;
  writeFileSync(join(work, 'damaged.bundle'), bytes);

  const { host, core, stop } = await bootWithCore(
    ['--release-dir', dir, '--extra-release-dir', nextDir],
    { binds: [{ source: work, target: '/opt/bundles' }] },
  );
  try {
    // No console file and no release file can be had: every one answers 503.
    for (const target of [
      'manifest.json',
      'oac-node.gz',
      'SHA256SUMS',
      ...manifest.files.map((f) => f.name),
      ...next.manifest.files.map((f) => f.name),
    ])
      assert.equal(
        (
          await core.coreApi('PUT', '/__fixture/faults', {
            target,
            fault: { kind: 'status', status: 503 },
          })
        ).status,
        204,
      );
    const { token, installationId, uninstall, sha: installerSha256 } = await issueToken(core);
    const lineFor = (bundle: string) =>
      renderInstallCommand({
        consoleUrl: core.coreUrl,
        coreUrl: core.coreUrl,
        installationId,
        installerSha256,
        token,
        bundle,
        manifestSha256,
      });
    const pristine = await host.snapshot();
    await core.coreApi('DELETE', '/__fixture/requests');

    const damaged = await host.exec(['sh'], {
      stdin: `${lineFor('/opt/bundles/damaged.bundle')}\n`,
      timeoutMs: 600_000,
    });
    assert.equal(damaged.status, 1, `${damaged.stdout}\n${damaged.stderr}`);
    assert.match(
      damaged.stderr,
      new RegExp(
        `^oac-node: The bundle /opt/bundles/damaged\\.bundle is damaged: ${image.replaceAll('.', '\\.')} does not match the release manifest$`,
        'm',
      ),
    );
    assert.match(
      damaged.stderr,
      /^oac-node: taking the installer from the bundle \/opt\/bundles\/damaged\.bundle$/m,
    );
    assert.deepEqual(diffSnapshots(pristine, await host.snapshot()), [], 'the host is unchanged');
    // (Its installer is intact: the line kept it, and the good bundle's line below reuses it.)

    const line = lineFor('/opt/bundles/release.bundle');
    const installed = await host.exec(['sh'], { stdin: `${line}\n`, timeoutMs: 600_000 });
    const logs =
      installed.status === 0
        ? ''
        : (await host.sh('journalctl -u "oac-node-*" --no-pager | tail -40')).stdout;
    assert.equal(installed.status, 0, `${installed.stdout}\n${installed.stderr}\n${logs}`);
    const nodes = await listNodes(core);
    assert.deepEqual(
      nodes.map((n) => [n.connected, n.provider_ready]),
      [[true, true]],
    );
    const fileRequests = (await apiAndFileRequests(core)).filter(
      (r) =>
        r.server === 'release' ||
        r.path.startsWith('/node-files/') ||
        r.path.startsWith('/node-install/'),
    );
    assert.deepEqual(fileRequests, [], 'no file was asked of the console or the release server');

    const rerun = await host.exec(['sh'], { stdin: `${line}\n`, timeoutMs: 600_000 });
    assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
    assert.doesNotMatch(rerun.stdout, /^\s+(create|update|created|updated)\s/m, rerun.stdout);
    const installer = uninstall[3] ?? '';
    const dry = await host.exec(
      [
        installer,
        'install',
        '--core-url',
        core.coreUrl,
        '--bundle',
        '/opt/bundles/release.bundle',
        '--manifest-sha256',
        manifestSha256,
        '--installation-id',
        installationId,
        '--plan-out',
        '/root/rerun.plan',
      ],
      { stdin: '' },
    );
    assert.equal(dry.status, 0, `nothing would change\n${dry.stdout}\n${dry.stderr}`);
    // DECL-05 with a bundle: the saved plan names it, and apply opens and checks it again.
    const applied = await host.exec([installer, 'apply', '/root/rerun.plan'], {
      stdin: '',
      timeoutMs: 600_000,
    });
    assert.equal(applied.status, 0, `${applied.stdout}\n${applied.stderr}`);
    assert.match(applied.stdout, /release\.bundle|unchanged/, applied.stdout);
    const stale = await host.exec([installer, 'apply', '/root/rerun.plan'], { stdin: '' });
    assert.equal(stale.status, 3, `applied once, the plan is stale\n${stale.stderr}`);

    // Core's configuration moves to the next release, which this host cannot download: the
    // documented command with a bundle of it stages it, and the node rolls out by itself.
    const deployment = (await core.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
      specification: Record<string, unknown>;
    };
    const put = await core.coreApi('PUT', '/core/v1/sandbox/specification', {
      specification: { ...deployment.specification, release: next.manifest.release },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const target = (put.body as { generation: number }).generation;
    const stageArgs = [
      installer,
      'install',
      '--core-url',
      core.coreUrl,
      '--installation-id',
      installationId,
      '--bundle',
      '/opt/bundles/next.bundle',
      '--manifest-sha256',
      /^Manifest SHA-256: ([0-9a-f]{64})$/m.exec(nextPrinted)?.[1] ?? '',
    ];
    const plan = await host.exec([...stageArgs, '--dry-run'], { stdin: '' });
    assert.equal(plan.status, 2, `${plan.stdout}\n${plan.stderr}`);
    // Issue #38: the staging is a step of the plan, shown as every planned step is.
    assert.match(
      plan.stdout,
      new RegExp(
        `^  update +stage release ${next.manifest.release.replaceAll('.', '\\.')} for generation ${target} \\(.+\\), then restart oac-node-`,
        'm',
      ),
    );
    // DECL-05: a run that only stages has no plan of the installation to save: said in its own
    // line, before anything is written (no plan file, nothing staged yet).
    const noPlan = await host.exec([...stageArgs, '--plan-out', '/root/stage.plan'], { stdin: '' });
    assert.equal(noPlan.status, 1, `${noPlan.stdout}\n${noPlan.stderr}`);
    assert.match(
      noPlan.stderr,
      new RegExp(
        `^oac-node: This run only stages release ${next.manifest.release.replaceAll('.', '\\.')} for the running node's rollout to generation ${target}: that is no plan of the installation to save$`,
        'm',
      ),
    );
    assert.equal((await host.exec(['test', '-e', '/root/stage.plan'])).status, 1, 'no plan file');
    const staged = await host.exec(stageArgs, { stdin: '', timeoutMs: 600_000 });
    assert.equal(staged.status, 0, `${staged.stdout}\n${staged.stderr}`);
    const after = await listNodes(core);
    assert.deepEqual(
      after.map((n) => [n.generation, n.connected, n.provider_ready]),
      [[target, true, true]],
      'the node serves the new generation, ready',
    );
    const asked = (await apiAndFileRequests(core)).filter(
      (r) =>
        r.server === 'release' ||
        r.path.startsWith('/node-files/') ||
        r.path.startsWith('/node-install/'),
    );
    // Before the bundle was staged, the node's rollout asked the console for the new manifest
    // (it may have had a route): refused, and never a node file.
    const refusedManifest = `/node-files/${next.manifest.release}/manifest.json`;
    assert.ok(
      asked.every((r) => r.path === refusedManifest && (r as { status?: unknown }).status === 503),
      JSON.stringify(asked),
    );

    const nodeId = nodes[0]?.node_id ?? '';
    await removeAndUninstall(host, core, { nodeId, installationId, uninstall }, pristine);
  } finally {
    await stop();
  }
});
