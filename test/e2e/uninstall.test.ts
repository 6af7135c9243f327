// UNI-01…06 end to end: after an install by the generated line, uninstall refuses while Core
// lists the node (its dry run shows the steps and the refusal), and once Core removed it, returns the host to its snapshot from before the
// install, except the Runtime image, which it keeps and names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listNodes, removeNodeInCore, untilNodeStopped } from './harness/core-nodes.ts';
import { withInstalledHost } from './harness/installed.ts';
import { beyondKeptImage, diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();

test('UNI-01…06 uninstall: refused while Core lists the node; then the host equals its snapshot before install, the image kept', async () => {
  // A host booted with a node the line installed (harness/installed.ts): `pristine` is the
  // snapshot of the host the line ran in, taken before it ran; this host booted from the same
  // rootfs and that host's changes, and booting writes nothing the snapshot compares (its
  // files and trees, units, Docker), so uninstall must bring this one back to it.
  await withInstalledHost(release, async ({ host, core, line, before: pristine }) => {
    const { uninstall, installationId } = line;

    const installed = await host.snapshot();
    const refused = await host.exec(uninstall);
    assert.equal(refused.status, 1, refused.stdout);
    assert.match(refused.stderr, /^oac-node: Core still lists this node$/m);
    assert.deepEqual(diffSnapshots(installed, await host.snapshot()), [], 'UNI-01 nothing changed');
    // Issue #38: Core's answer is an input of the plan, so a dry run while Core lists the node
    // shows every step of the removal and then the refusal (exit 1), changing nothing.
    const preview = await host.exec([...uninstall, '--dry-run']);
    const shown = `${preview.stdout}\n${preview.stderr}`;
    assert.equal(preview.status, 1, shown);
    assert.match(preview.stdout, /^\s+remove\s+stop and disable oac-node-\S+\.service$/m, shown);
    assert.match(preview.stdout, /^\s+remove\s+delete user oac-node$/m, shown);
    assert.match(preview.stderr, /^oac-node: Core still lists this node$/m, shown);
    assert.deepEqual(diffSnapshots(installed, await host.snapshot()), [], 'UNI-01 the preview too');

    const [node] = await listNodes(core);
    await removeNodeInCore(core, node?.node_id ?? '');

    // The node learns of its removal and stops for good (exit 78), releasing its state lock.
    await untilNodeStopped(host, installationId, { lockReleased: true });
    const stopped = await host.snapshot();
    // issue #5 item 3: the plan, one line per resource, exit 2 because something would change.
    const plan = await host.exec([...uninstall, '--dry-run']);
    assert.equal(plan.status, 2, `${plan.stdout}\n${plan.stderr}`);
    assert.match(plan.stdout, /^\s+remove\s+stop and disable oac-node-\S+\.service$/m);
    assert.match(plan.stdout, /^\s+remove\s+delete user oac-node$/m);
    assert.match(plan.stdout, /^\s+remove\s+.*\/usr\/local\/sbin\/oac-node$/m);
    assert.match(plan.stdout, /^Changes would be made\.$/m);
    assert.deepEqual(diffSnapshots(stopped, await host.snapshot()), [], 'the plan changed nothing');

    // Issue #25 item 2: as the hints say it, `oac-node` on PATH taking the one installation.
    const removed = await host.exec(['sh', '-c', 'sudo oac-node uninstall']);
    assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
    const command = await host.exec(['test', '-e', '/usr/local/sbin/oac-node']);
    assert.equal(command.status, 1, 'uninstall removed oac-node from PATH');
    assert.match(
      removed.stdout,
      // Run through sudo, its hints say sudo too (the guide: omit it only in a root shell).
      /^Kept: the Runtime image (\S+): remove it with sudo docker image rm \1$/m,
    );
    assert.match(removed.stdout, /^ {2}removed +user oac-node$/m);
    const after = await host.snapshot();
    const differences = diffSnapshots(pristine, after);
    assert.ok(
      beyondKeptImage(differences).length === 0,
      `only the kept image differs:\n${differences.join('\n')}`,
    );
    assert.ok(differences.length > 0, 'the Runtime image is kept (UNI-04)');

    const again = await host.exec(uninstall);
    assert.equal(again.status, 0, `UNI-06 rerunnable: ${again.stdout}\n${again.stderr}`);
    // Its record gone, the rerun says so rather than claim a removal (issue #25).
    assert.match(
      again.stdout,
      /^This host has no record of installation \S+, and nothing was removed\.$/m,
    );
    const nothing = await host.exec([...uninstall, '--dry-run']);
    assert.equal(nothing.status, 0, nothing.stdout);
    assert.match(nothing.stdout, /^Nothing would change\.$/m);
    assert.deepEqual(diffSnapshots(after, await host.snapshot()), []);
  });
});

test('UNI-01 Core gone: uninstall says to use --force and changes nothing; with --force it completes', async () => {
  await withInstalledHost(release, async ({ host, core, line, before: pristine }) => {
    const { uninstall } = line;
    await core.stop();

    const installed = await host.snapshot();
    const refused = await host.exec(uninstall);
    assert.equal(refused.status, 1, refused.stdout);
    assert.match(
      refused.stderr,
      /^oac-node: Cannot ask Core at http:\/\/127\.0\.0\.1:\d+ whether the node was removed: /m,
    );
    assert.match(refused.stderr, /--force/);
    assert.deepEqual(diffSnapshots(installed, await host.snapshot()), []);

    const forced = await host.exec([...uninstall, '--force']);
    assert.equal(forced.status, 0, `${forced.stdout}\n${forced.stderr}`);
    const differences = diffSnapshots(pristine, await host.snapshot());
    assert.ok(beyondKeptImage(differences).length === 0, differences.join('\n'));
  });
});
