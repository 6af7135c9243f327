// Issue #23, DECL-05 end to end: a plan saved with `install … --plan-out FILE`, reviewed with
// `show-plan FILE` (which prints what the dry run printed), and applied with `apply FILE` only
// while the host, the record and Core are as the plan found them. A change in between (a group
// membership removed by hand) makes `apply` refuse with exit 3 and change nothing; a new plan
// applies and converges; the same file applied again is stale.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listNodes, removeNodeInCore, untilNodeStopped } from './harness/core-nodes.ts';
import { withInstalledHost } from './harness/installed.ts';
import { beyondKeptImage, diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();

test('DECL-05 a saved plan is applied exactly: refused (exit 3, nothing changed) after the host moved; a new plan converges; applied once it is stale', async () => {
  // Each test's host is booted with a node the line installed (harness/installed.ts).
  await withInstalledHost(release, async ({ host, core, line }) => {
    const { installationId: id, uninstall } = line;
    // The installer the line kept, run again directly: a registered node needs no token.
    const installer = uninstall.slice(0, 4);
    const install = [...installer, 'install', '--core-url', core.coreUrl, '--installation-id', id];
    const inGroup = async () =>
      /^docker:[^:]*:\d+:(.*,)?oac-node(,|$)/m.test(await host.shOk('cat /etc/group'));

    // A plan of a converged node: nothing to do, saved 0600.
    const first = await host.exec([...install, '--plan-out', '/root/first.plan']);
    assert.equal(first.status, 0, `${first.stdout}\n${first.stderr}`);
    assert.match(first.stdout, /^Nothing would change\.$/m);
    assert.match(first.stdout, /^Plan saved to \/root\/first\.plan; apply it with: /m);
    assert.equal(await host.shOk('stat -c %a /root/first.plan'), '600\n');

    // The host moves after the review: apply refuses, naming what moved, and changes nothing.
    await host.shOk('gpasswd -d oac-node docker >/dev/null');
    const groupBefore = await host.shOk('cat /etc/group /etc/oac-node/*.json | sha256sum');
    const stale = await host.exec([...installer, 'apply', '/root/first.plan']);
    assert.equal(stale.status, 3, `${stale.stdout}\n${stale.stderr}`);
    assert.match(
      stale.stderr,
      /^oac-node: The saved plan is stale: group-membership:docker changed on the host; nothing was changed$/m,
    );
    assert.equal(
      await host.shOk('cat /etc/group /etc/oac-node/*.json | sha256sum'),
      groupBefore,
      'nothing changed: not the group, not the record',
    );
    assert.equal(await inGroup(), false);

    // Plan again: show-plan prints exactly what the dry run prints; apply converges.
    const second = await host.exec([...install, '--plan-out', '/root/second.plan']);
    assert.equal(second.status, 2, `${second.stdout}\n${second.stderr}`);
    const dryRun = await host.exec([...install, '--dry-run']);
    assert.equal(dryRun.status, 2);
    const shown = await host.exec([...installer, 'show-plan', '/root/second.plan']);
    assert.equal(shown.status, 2, shown.stderr);
    assert.equal(shown.stdout, dryRun.stdout, 'show-plan prints what --dry-run prints');
    assert.match(shown.stdout, /^ {2}create +add oac-node to group docker/m);
    const shownJson = await host.exec([...installer, 'show-plan', '/root/second.plan', '--json']);
    const dryJson = await host.exec([...install, '--dry-run', '--json']);
    assert.equal(shownJson.stdout, dryJson.stdout, 'and --json the same events');

    const applied = await host.exec([...installer, 'apply', '/root/second.plan']);
    assert.equal(applied.status, 0, `${applied.stdout}\n${applied.stderr}`);
    assert.match(applied.stdout, /is connected and ready\./);
    assert.equal(await inGroup(), true, 'the plan was applied');
    const after = await host.exec([...install, '--dry-run']);
    assert.equal(after.status, 0, `converged:\n${after.stdout}`);

    // Applied once, the file is stale.
    const again = await host.exec([...installer, 'apply', '/root/second.plan']);
    assert.equal(again.status, 3, `${again.stdout}\n${again.stderr}`);
    assert.match(again.stderr, /^oac-node: The saved plan is stale: /m);

    // A plan file someone else could have written is not read.
    await host.shOk('cp /root/second.plan /tmp/other.plan && chmod 0666 /tmp/other.plan');
    const foreign = await host.exec([...installer, 'show-plan', '/tmp/other.plan']);
    assert.equal(foreign.status, 1);
    assert.match(
      foreign.stderr,
      /^oac-node: The plan file \/tmp\/other\.plan is not root's alone/m,
    );
  });
});

test('DECL-05 UNI-02 uninstall through a saved plan: show-plan equals the dry run; the host moves → stale, nothing changed; the new plan applied leaves the host at its snapshot', async () => {
  await withInstalledHost(release, async ({ host, core, line, before: pristine }) => {
    const { uninstall, installationId } = line;
    const installer = uninstall.slice(0, 4);
    const [node] = await listNodes(core);
    await removeNodeInCore(core, node?.node_id ?? '');
    await untilNodeStopped(host, installationId, { lockReleased: true });

    const made = await host.exec([...uninstall, '--plan-out', '/root/remove.plan']);
    assert.equal(made.status, 2, `${made.stdout}\n${made.stderr}`);
    const dryRun = await host.exec([...uninstall, '--dry-run']);
    const shown = await host.exec([...installer, 'show-plan', '/root/remove.plan']);
    assert.equal(shown.status, 2, shown.stderr);
    assert.equal(shown.stdout, dryRun.stdout, 'show-plan prints what --dry-run prints');
    assert.match(shown.stdout, /^\s+remove\s+delete user oac-node$/m);

    // The host moves: the unit file edited after the plan was made.
    const unit = `/etc/systemd/system/oac-node-${installationId}.service`;
    await host.shOk(`echo '# edited' >> ${unit}`);
    const moved = await host.snapshot();
    const stale = await host.exec([...installer, 'apply', '/root/remove.plan']);
    assert.equal(stale.status, 3, `${stale.stdout}\n${stale.stderr}`);
    assert.match(stale.stderr, /^oac-node: The saved plan is stale: unit changed on the host/m);
    assert.deepEqual(diffSnapshots(moved, await host.snapshot()), [], 'nothing changed');

    const again = await host.exec([...uninstall, '--plan-out', '/root/remove2.plan']);
    assert.equal(again.status, 2, `${again.stdout}\n${again.stderr}`);
    const applied = await host.exec([...installer, 'apply', '/root/remove2.plan']);
    assert.equal(applied.status, 0, `${applied.stdout}\n${applied.stderr}`);
    assert.match(applied.stdout, /^ {2}removed +user oac-node$/m);
    const differences = diffSnapshots(pristine, await host.snapshot()).filter(
      (d) => !d.includes('/root/remove'),
    );
    assert.deepEqual(beyondKeptImage(differences), [], differences.join('\n'));
    const twice = await host.exec([...installer, 'apply', '/root/remove2.plan']);
    assert.equal(twice.status, 3, `applied once, stale:\n${twice.stdout}\n${twice.stderr}`);
  });
});
