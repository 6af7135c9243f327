// HOST-12, the distribution matrix (issue #24 item 5): the Debian releases before and after the one
// the whole e2e tier runs on (12, bookworm), each built by debootstrap with its own systemd and
// docker.io (scripts/e2e-rootfs.sh build SUITE). One pass on each, the operator's whole job: the
// line installs a ready node, a rerun changes nothing, status finds no drift, and once Core
// removed the node, uninstall returns the host to its snapshot from before the install.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listNodes, removeNodeInCore, untilNodeStopped } from './harness/core-nodes.ts';
import { withHostAndCore } from './harness/core-pair.ts';
import { installByLine } from './harness/enroll.ts';
import type { E2eHost } from './harness/host.ts';
import type { Suite } from './harness/rootfs.ts';
import { assertRerunsUnchanged } from './harness/converged.ts';
import { beyondKeptImage, diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
const coreArgs = async () => ['--release-dir', await release.dir()];

const matrix: Array<{ suite: Suite; version: string }> = [
  { suite: 'bullseye', version: '11' },
  { suite: 'trixie', version: '13' },
];

/** What the host says it is, and the versions of what the installer leans on. */
async function hostFacts(host: E2eHost): Promise<string> {
  return host.shOk(
    '. /etc/os-release; echo "$VERSION_ID"; systemctl --version | head -n 1; docker version --format "{{.Server.Version}}"',
  );
}

for (const { suite, version } of matrix) {
  test(`HOST-12 Debian ${version} (${suite}): the line installs a ready node, a rerun changes nothing, status finds no drift, uninstall returns the host to its snapshot`, async (t) => {
    await withHostAndCore(coreArgs, { suite }, async (host, core) => {
      const facts = await hostFacts(host);
      assert.equal(facts.split('\n')[0], version, `a Debian ${version} host: ${facts}`);
      const [, systemd, docker] = facts.split('\n');
      t.diagnostic(`Debian ${version}: ${systemd?.replace(/ \(.*/, '')}, Docker ${docker}`);
      const pristine = await host.snapshot();

      const line = await installByLine(host, core);
      const { installationId, uninstall, output } = line;
      assert.match(output, /^Node \S+ is connected and ready\.$/m, `${facts}\n${output}`);
      // The unit's every line is one this release's systemd knows: systemd-analyze verify says
      // "Unknown key name …, ignoring" (or another complaint) otherwise, and exits 0 all the same.
      const verified = await host.exec(
        ['systemd-analyze', 'verify', `/etc/systemd/system/oac-node-${installationId}.service`],
        { env: { SYSTEMD_COLORS: '0' } },
      );
      assert.equal(verified.status, 0, verified.stderr);
      assert.equal(`${verified.stdout}${verified.stderr}`, '', `systemd on Debian ${version}`);
      const [node] = await listNodes(core);
      assert.ok(node?.connected && node.provider_ready, JSON.stringify(node));

      const installed = await host.snapshot();
      await assertRerunsUnchanged(host, core, line, installed);

      await removeNodeInCore(core, node?.node_id ?? '');
      await untilNodeStopped(host, installationId, { lockReleased: true });
      const removed = await host.exec(uninstall);
      assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
      const differences = diffSnapshots(pristine, await host.snapshot());
      assert.deepEqual(beyondKeptImage(differences), [], differences.join('\n'));
    });
  });
}
