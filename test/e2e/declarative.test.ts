// Issue #10 end to end, in throwaway hosts with real systemd and Docker:
//   DECL-02 a network `oac-node-<id>` that was there before the install is adopted, and stays
//           after uninstall;
//   DECL-04 after Core removes the node and uninstall runs, systemd lists no unit of ours in any
//           state, and `is-system-running` says what it said before the install;
//   DECL-03 a dry run after a proxy change lists the service's restart, and the run right after
//           restarts it exactly once; a rerun that re-adds the provider group restarts it too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { removeNodesInCore, untilNodeStopped } from './harness/core-nodes.ts';
import { withHostAndCore } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import { withInstalledHost } from './harness/installed.ts';
import type { E2eHost } from './harness/host.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();

/** How often systemd started the unit: one `Started` line in its journal per start. */
async function starts(host: E2eHost, unit: string): Promise<number> {
  const r = await host.exec(['journalctl', '--no-pager', '-o', 'cat', '-u', unit]);
  return r.stdout.split('\n').filter((l) => l.startsWith('Started ')).length;
}

test('DECL-02 DECL-04 a network that was there before is adopted and survives uninstall; afterwards systemd holds no unit of ours and its state is as before', async () => {
  await withHostAndCore(['--release-dir', await release.dir()], async (host, core) => {
    const { command, installationId: id, uninstall } = await issueToken(core);
    const stateBefore = (await host.exec(['systemctl', 'is-system-running'])).stdout.trim();
    await host.shOk(`docker network create oac-node-${id} >/dev/null`);

    const run = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const journal = JSON.parse(await host.shOk(`cat /etc/oac-node/${id}.json`)) as {
      resources: Record<string, { ownership: string }>;
    };
    assert.equal(journal.resources.network?.ownership, 'adopted', 'found, not created');
    assert.equal(journal.resources.state?.ownership, 'owned');

    await removeNodesInCore(core);
    // The node learns of its removal and stops for good (exit 78): its unit is now failed.
    await untilNodeStopped(host, id);
    const removed = await host.exec(uninstall);
    assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
    assert.match(
      removed.stdout,
      new RegExp(
        `^Kept: network oac-node-${id} \\(adopted: it was there before the installer\\)$`,
        'm',
      ),
    );
    const network = await host.exec(['docker', 'network', 'inspect', `oac-node-${id}`]);
    assert.equal(network.status, 0, 'the adopted network is still there');

    const units = await host.exec([
      'systemctl',
      'list-units',
      '--all',
      '--plain',
      '--no-legend',
      'oac-node*',
    ]);
    assert.equal(units.stdout.trim(), '', `no unit of ours in any state:\n${units.stdout}`);
    const stateAfter = (await host.exec(['systemctl', 'is-system-running'])).stdout.trim();
    assert.equal(stateAfter, stateBefore);
  });
});

test('DECL-03 a dry run after a proxy change lists the restart; the run right after restarts exactly once; re-adding the group restarts too', async () => {
  // A host booted with a node the line installed (harness/installed.ts).
  await withInstalledHost(release, async ({ host, core, line }) => {
    const { installationId: id, uninstall } = line;
    const unit = `oac-node-${id}.service`;
    // The installer the line kept, run again directly: a registered node needs no token.
    const installer = [...uninstall.slice(0, 4)];
    const args = ['install', '--core-url', core.coreUrl, '--installation-id', id];
    // Core is on loopback, which DL-04 always reaches directly: the proxy changes only the env file.
    const proxy = ['https_proxy=http://proxy.invalid:3128'];
    const withProxy = [...installer.slice(0, 3), ...proxy, ...installer.slice(3), ...args];

    const before = await starts(host, unit);
    const plan = await host.exec([...withProxy, '--dry-run']);
    assert.equal(plan.status, 2, `${plan.stdout}\n${plan.stderr}`);
    assert.match(plan.stdout, /^ {2}create +write \/etc\/oac-node\/\S+\.env/m);
    assert.match(
      plan.stdout,
      new RegExp(
        `^ {2}update +restart ${unit.replace('.', '\\.')} \\(proxy-settings changed\\)$`,
        'm',
      ),
    );
    assert.equal(await starts(host, unit), before, 'the dry run restarted nothing');

    const real = await host.exec(withProxy);
    assert.equal(real.status, 0, `${real.stdout}\n${real.stderr}`);
    assert.match(
      real.stdout,
      new RegExp(`^ {2}updated +${unit.replace('.', '\\.')} restarted$`, 'm'),
    );
    assert.equal(await starts(host, unit), before + 1, 'restarted exactly once');

    const again = await host.exec([...withProxy, '--dry-run']);
    assert.equal(again.status, 0, `nothing left to do:\n${again.stdout}`);

    // A new group membership applies only to a new process (the guide): re-adding restarts.
    await host.shOk('gpasswd -d oac-node docker >/dev/null');
    const regroup = await host.exec(withProxy);
    assert.equal(regroup.status, 0, `${regroup.stdout}\n${regroup.stderr}`);
    assert.match(regroup.stdout, /^ {2}created +oac-node in group docker$/m);
    assert.equal(await starts(host, unit), before + 2, 'restarted once more');
    assert.match(await host.shOk('id -nG oac-node'), /\bdocker\b/);
  });
});
