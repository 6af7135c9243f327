// UPG-01 end to end (issue #24): Core's console starts serving a newer installer; the line it
// then gives, pasted on a host installed by the older one, upgrades the node in place. The dry
// run of the newer program names both versions and the restart; the line replaces the program,
// records the new version, restarts the service exactly once and returns when Core lists the
// node ready on the new version. An older line pasted afterwards (a shell's history) is refused
// in one line, with nothing changed on the host and the node still on the newer version.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listNodes } from './harness/core-nodes.ts';
import { withHostAndCore, type CoreInHost } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import type { E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { newerExecutable, serveInstaller, testRelease } from './helpers/release.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { dirname } from 'node:path';
import { VERSION } from '../../src/version.ts';

const release = testRelease();
const newer = newerExecutable();

const withHost = (fn: (host: E2eHost, core: CoreInHost, dir: string) => Promise<void>) =>
  release.dir().then((dir) => withHostAndCore(['--release-dir', dir], (h, c) => fn(h, c, dir)));

/** Pastes Core's current line into the host's sh as root. */
async function paste(host: E2eHost, core: CoreInHost) {
  const line = await issueToken(core);
  const run = await host.exec(['sh'], { stdin: `${line.command}\n`, timeoutMs: 600_000 });
  return { ...line, run, shown: `exit ${run.status}\n${run.stdout}\n${run.stderr}` };
}

test('UPG-01 the line of a newer release upgrades in place: the dry run names both versions and the restart; the program is replaced, its version recorded, the service restarted once, and Core lists the node ready on the new version; an older line afterwards is refused with nothing changed', async () => {
  const b = await newer.build();
  await withHost(async (host, core, releaseDir) => {
    const first = await paste(host, core);
    assert.equal(first.run.status, 0, first.shown);
    const unit = `oac-node-${first.installationId}.service`;
    const journal = `/etc/oac-node/${first.installationId}.json`;
    assert.deepEqual(
      (await listNodes(core)).map((n) => [n.software, n.connected, n.provider_ready]),
      [[`oac-node/${VERSION}`, true, true]],
    );

    // The console serves B from now on. Its program, as the line would fetch it, shows the plan.
    serveInstaller(releaseDir, b.dir);
    const fetchB = `curl -fsS ${core.coreUrl}/node-install/oac-node.gz | gzip -d > /root/b && chmod 0755 /root/b`;
    await host.shOk(fetchB);
    const dry = await host.exec(
      [
        '/root/b',
        'install',
        '--core-url',
        core.coreUrl,
        '--installation-id',
        first.installationId,
        '--dry-run',
      ],
      { stdin: '' },
    );
    const dryShown = `exit ${dry.status}\n${dry.stdout}\n${dry.stderr}`;
    assert.equal(dry.status, 2, dryShown);
    const arrow = `version ${VERSION.replaceAll('.', '\\.')} → ${b.version.replaceAll('.', '\\.')}`;
    assert.match(dry.stdout, new RegExp(arrow), dryShown);
    assert.match(dry.stdout, /restart/i, dryShown);

    const since = (await host.shOk('date +%s')).trim();
    await host.shOk('sleep 1'); // journalctl's --since has whole seconds
    const second = await paste(host, core);
    assert.equal(second.run.status, 0, second.shown);
    assert.deepEqual(
      (await listNodes(core)).map((n) => [n.software, n.connected, n.provider_ready]),
      [[`oac-node/${b.version}`, true, true]],
      'Core lists the one node, ready, on the new version',
    );
    const starts = await host.shOk(
      `journalctl -u ${unit} --since @${since} -o cat --no-pager | grep -c '^Started ' || true`,
    );
    assert.equal(starts.trim(), '1', 'the service was started once by the upgrade');
    const recorded = JSON.parse(await host.shOk(`cat ${journal}`)) as {
      resources: Record<string, { props: Record<string, unknown> }>;
    };
    assert.equal(recorded.resources.program?.props.version, b.version);
    assert.equal((await host.shOk('oac-node --version')).trim(), b.version);

    // A's line again: refused before anything changes; the node stays on B.
    serveInstaller(releaseDir, dirname(requireExecutable()));
    const upgraded = await host.snapshot();
    const old = await paste(host, core);
    assert.equal(old.run.status, 1, old.shown);
    const refusal = `^oac-node: This host's node program is oac-node ${b.version.replaceAll('.', '\\.')}, newer than this installer \\(${VERSION.replaceAll('.', '\\.')}\\); nothing was changed$`;
    assert.match(old.run.stderr, new RegExp(refusal, 'm'), old.shown);
    assert.match(old.run.stderr, /--allow-downgrade/, old.shown);
    assert.deepEqual(diffSnapshots(upgraded, await host.snapshot()), [], 'nothing changed');
    assert.deepEqual(
      (await listNodes(core)).map((n) => [n.software, n.connected, n.provider_ready]),
      [[`oac-node/${b.version}`, true, true]],
    );
  });
});
