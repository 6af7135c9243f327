// Issue #4 and #5 for a microsandbox Core, end to end: the generated line turns a throwaway
// Debian 12 host with real systemd and a KVM device into a connected, ready node (kvm group
// only, provider files verified, the store with the imported image); a rerun changes nothing;
// uninstall after Core's removal deletes the store and leaves the host as it was (UNI-05). With
// --checkpoint-root the shared store is checked, recorded and kept; under --force the store and
// the account stay, with the command that deletes the store, and a rerun finishes.
//
// The host gets its own /dev/kvm node (char 10:232, root:kvm 0660) made inside the container,
// as a KVM host's udev would: this machine's /dev/kvm is never touched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listNodes, removeNodeInCore } from './harness/core-nodes.ts';
import { addKvmDevice, withHostAndCore, type CoreInHost } from './harness/core-pair.ts';
import { fromLine, issueToken } from './harness/enroll.ts';
import { type E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';
import { noKvm } from '../helpers/kvm.ts';

const STORE = '/var/lib/oac-node/.oac/m';
const SHARED = '/srv/oac-checkpoints';
const release = testRelease();

/** A KVM host (its own /dev/kvm) and a microsandbox Core, for one test. */
const withKvmHost = (fn: (host: E2eHost, core: CoreInHost) => Promise<void>) => {
  const args = async () => ['--release-dir', await release.dir(), '--provider', 'microsandbox'];
  return withHostAndCore(args, { prepare: addKvmDevice }, fn);
};

/** The line from Core, edited as the guide says for a shared store, pasted into sh. */
async function runLine(host: E2eHost, core: CoreInHost, extra = '') {
  const { command } = await issueToken(core);
  const line = command.replace(/(--installation-id "[^"]+")/, `$1${extra}`);
  const run = await host.exec(['sh'], { stdin: `${line}\n`, timeoutMs: 600_000 });
  return { line, run, ...fromLine(command) };
}

test(
  'PRE-05 HOST-02 HOST-04 UNI-05 microsandbox: a ready node in the kvm group only; rerun unchanged; uninstall leaves the host as it was',
  { skip: noKvm },
  async () => {
    await withKvmHost(async (host, core) => {
      // PRE-05: a /dev/kvm only root can open is refused before anything changes.
      await host.shOk('chmod 0600 /dev/kvm');
      const closed = await host.snapshot();
      const refused = await runLine(host, core);
      assert.notEqual(refused.run.status, 0);
      assert.match(
        refused.run.stderr,
        /^oac-node: KVM is unavailable, or \/dev\/kvm must be group-accessible$/m,
      );
      assert.deepEqual(diffSnapshots(closed, await host.snapshot()), [], 'PRE-09 nothing changed');
      await host.shOk('chmod 0660 /dev/kvm');

      const pristine = await host.snapshot();
      const { line, run, installationId, uninstall } = await runLine(host, core);
      const logs =
        run.status === 0
          ? ''
          : (await host.sh('journalctl -u "oac-node-*" --no-pager | tail -40')).stdout;
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}\n${logs}`);
      const [node] = await listNodes(core);
      assert.deepEqual(
        { connected: node?.connected, ready: node?.provider_ready, code: node?.readiness_code },
        { connected: true, ready: true, code: null },
        'ENR-04: Core lists it connected and ready (it opened /dev/kvm and checked its files)',
      );
      assert.equal(
        (await host.shOk('id -nG oac-node')).trim(),
        'oac-node kvm',
        'HOST-02: kvm only',
      );
      const state = `/var/lib/oac-node/.oac/nodes/${installationId}`;
      assert.equal(
        (
          await host.shOk(`stat -c '%U %a' ${STORE} ${STORE}/run ${STORE}/checkpoints ${state}`)
        ).trim(),
        'oac-node 700\noac-node 700\noac-node 700\noac-node 700',
      );
      assert.match(await host.shOk(`ls ${STORE}/images/*/index.json`), /index\.json/);
      assert.equal(
        (await host.shOk(`ls ${state}/files | sed 's/.*-linux-amd64-//' | sort`)).trim(),
        'microsandbox-firmware.bin\nmicrosandbox-helper\nmicrosandbox-runtime.bin',
        'DL-06: the three provider files stay, the Runtime archive is gone',
      );
      assert.equal(
        (await host.shOk(`docker network ls -q --filter name=oac-node; docker image ls -q`)).trim(),
        '',
        'HOST-07 is Docker only: no network, no image',
      );

      // RERUN-01: the same line again changes nothing.
      const installed = await host.snapshot();
      const rerun = await host.exec(['sh'], { stdin: `${line}\n`, timeoutMs: 600_000 });
      assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
      assert.doesNotMatch(rerun.stdout, /\b(created|updated|replaced|removed)\b/, rerun.stdout);
      assert.deepEqual(diffSnapshots(installed, await host.snapshot()), []);

      // UNI-05: Core confirmed the removal: the store goes, then the account.
      await removeNodeInCore(core, node?.node_id ?? '');
      const removed = await host.exec(uninstall);
      assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
      assert.match(removed.stdout, new RegExp(`^ {2}removed +${STORE}$`, 'm'));
      assert.doesNotMatch(removed.stdout, /docker image rm/, 'no Docker image to name');
      assert.deepEqual(diffSnapshots(pristine, await host.snapshot()), [], 'the host as it was');
    });
  },
);

test(
  'HOST-11 UNI-05 --checkpoint-root: refused until the store is private to oac-node; recorded; under --force the store and account stay, a rerun finishes',
  { skip: noKvm },
  async () => {
    await withKvmHost(async (host, core) => {
      await host.shOk(`mkdir -m 0755 -p ${SHARED} && chown 65532:65532 ${SHARED}`);
      const open = await host.snapshot();
      const refused = await runLine(host, core, ` --checkpoint-root ${SHARED}`);
      assert.notEqual(refused.run.status, 0);
      assert.match(
        refused.run.stderr,
        new RegExp(
          `^oac-node: The checkpoint store ${SHARED} is open to others \\(mode 0755\\)$`,
          'm',
        ),
      );
      assert.deepEqual(diffSnapshots(open, await host.snapshot()), [], 'PRE-09 nothing changed');

      await host.shOk(`chmod 0700 ${SHARED}`);
      const pristine = await host.snapshot();
      const { run, installationId, uninstall } = await runLine(
        host,
        core,
        ` --checkpoint-root ${SHARED}`,
      );
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      const provider = JSON.parse(
        await host.shOk(`cat /var/lib/oac-node/.oac/nodes/${installationId}/provider.json`),
      ) as { adapter: { checkpoint_root: string } };
      assert.equal(provider.adapter.checkpoint_root, SHARED);
      assert.match(
        await host.shOk(`systemctl show -p ReadWritePaths oac-node-${installationId}.service`),
        new RegExp(`^ReadWritePaths=/var/lib/oac-node ${SHARED}$`, 'm'),
        'the sandboxed service may write the shared store',
      );
      assert.equal(
        (await host.shOk(`ls -A ${SHARED}`)).trim(),
        '',
        'the installer wrote nothing there',
      );

      // --force without Core: the store stays (microVMs may use it), and the account with it.
      await core.stop();
      const forced = await host.exec([...uninstall, '--force']);
      assert.equal(forced.status, 0, `${forced.stdout}\n${forced.stderr}`);
      assert.match(forced.stdout, new RegExp(`sudo -u oac-node rm -rf ${STORE} `));
      assert.match(forced.stdout, /pgrep -u oac-node/);
      assert.match(forced.stdout, new RegExp(`shared checkpoint store ${SHARED}`));
      assert.match(await host.shOk('getent passwd oac-node'), /^oac-node:/, 'the account stays');
      assert.equal((await host.shOk(`ls -d ${STORE}`)).trim(), STORE, 'the store stays');
      assert.equal(
        (await host.sh('systemctl list-unit-files "oac-node-*" --no-legend')).stdout.trim(),
        '',
        'the service is gone',
      );

      // The operator deletes the store as the hint says; the rerun removes the account.
      await host.shOk(`setpriv --reuid 65532 --regid 65532 --clear-groups rm -rf ${STORE}`);
      const finished = await host.exec(uninstall);
      assert.equal(finished.status, 0, `${finished.stdout}\n${finished.stderr}`);
      assert.match(finished.stdout, /^ {2}removed +user oac-node$/m);
      assert.deepEqual(diffSnapshots(pristine, await host.snapshot()), [], 'the host as it was');
    });
  },
);
