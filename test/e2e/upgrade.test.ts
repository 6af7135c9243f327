// UPG-01 end to end (issue #24): Core's console starts serving a newer installer; the line it
// then gives, pasted on a host installed by the older one, upgrades the node in place. The dry
// run of the newer program names both versions and the restart; the line replaces the program,
// records the new version, restarts the service exactly once and returns when Core lists the
// node ready on the new version. An older line pasted afterwards (a shell's history) is refused
// in one line, with nothing changed on the host and the node still on the newer version.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { listNodes } from './harness/core-nodes.ts';
import type { CoreInHost } from './harness/core-pair.ts';
import { issueToken, type InstalledByLine } from './harness/enroll.ts';
import { withInstalledHost } from './harness/installed.ts';
import type { E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { newerExecutable, serveInstaller, testRelease } from './helpers/release.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { killedBySignal } from './helpers/crash-host.ts';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VERSION } from '../../src/version.ts';

const release = testRelease();
const newer = newerExecutable();
const exitsAtStart = newerExecutable('exit-at-start');
const neverReady = newerExecutable('never-ready');
const prepareFails = newerExecutable('prepare-fails');

/** A host booted with a node the line of this release installed (harness/installed.ts), its
 *  Core, the release's directory (serveInstaller changes what its console serves) and the line. */
const withHost = (
  fn: (host: E2eHost, core: CoreInHost, dir: string, first: InstalledByLine) => Promise<void>,
) =>
  release
    .dir()
    .then((dir) => withInstalledHost(release, ({ host, core, line }) => fn(host, core, dir, line)));

/** Pastes Core's current line into the host's sh as root. */
async function paste(host: E2eHost, core: CoreInHost) {
  const line = await issueToken(core);
  const run = await host.exec(['sh'], { stdin: `${line.command}\n`, timeoutMs: 600_000 });
  return { ...line, run, shown: `exit ${run.status}\n${run.stdout}\n${run.stderr}` };
}

// Every release this file needs builds at once, while its first host boots (each test awaits its
// own; a failure shows there).
before(() => {
  for (const r of [newer, exitsAtStart, neverReady, prepareFails]) r.build().catch(() => undefined);
});

test('UPG-01 the line of a newer release upgrades in place: the dry run names both versions and the restart; the program is replaced, its version recorded, the service restarted once, and Core lists the node ready on the new version; an older line afterwards is refused with nothing changed', async () => {
  const b = await newer.build();
  await withHost(async (host, core, releaseDir, first) => {
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

/** The new release's program, as /root/b in the host. */
async function putProgram(host: E2eHost, dir: string): Promise<void> {
  await host.exec(['sh', '-c', 'cat > /root/b && chmod 0755 /root/b'], {
    stdin: readFileSync(join(dir, 'oac-node')),
  });
}

/** /root/b's install of a registered node (no token needed), as the line would run it, with a
 *  20 s wait; `env`: variables for it (a crash point). */
function installNew(host: E2eHost, core: CoreInHost, id: string, env: string[] = []) {
  const args = ['install', '--core-url', core.coreUrl, '--installation-id', id, '--timeout', '20'];
  return host.exec(['env', ...env, '/root/b', ...args], { stdin: '', timeoutMs: 300_000 });
}

/** The snapshot's differences, but the record's (the journal keeps what it learned of the
 *  attempt: the digest cache, its time stamps) and the running service's lock owner (the state
 *  lock names the process that holds it: another after any restart, as crash-host.ts says). */
const beyondRecord = (differences: string[], journal: string) =>
  differences.filter(
    (d) => !d.includes(journal.replace('/etc/oac-node/', '')) && !/\/\.lock\.owner: /.test(d),
  );

test('UPG-02 an upgrade whose program exits at start, never reports ready, or fails to prepare the node, rolls back by itself: the previous program restored and ready in Core, the host as before the attempt, a non-zero exit naming what failed', async () => {
  const broken = await Promise.all([
    exitsAtStart.build(),
    neverReady.build(),
    prepareFails.build(),
  ]);
  await withHost(async (host, core, _dir, first) => {
    const journal = `/etc/oac-node/${first.installationId}.json`;
    const unit = `oac-node-${first.installationId}.service`;
    for (const [b, failure] of [
      [broken[0], /did not become ready \(The node service \S+ stopped \(/],
      [broken[1], /did not become ready \(The node did not become connected and ready within 20 s/],
      // The new program's node half fails during the run, before the service restarts.
      [
        broken[2],
        /did not become ready \(Preparing the node as oac-node failed: .*this test build fails as it prepares the node/,
      ],
    ] as const) {
      await putProgram(host, b.dir);
      const before = await host.snapshot();
      const run = await installNew(host, core, first.installationId);
      const shown = `${b.version}: exit ${run.status}\n${run.stdout}\n${run.stderr}`;
      assert.equal(run.status, 1, shown);
      const line = `^oac-node: oac-node ${b.version.replaceAll('.', '\\.')} did not become ready .*; rolled back: the node runs oac-node ${VERSION.replaceAll('.', '\\.')} again, connected and ready$`;
      assert.match(run.stderr, new RegExp(line, 'm'), shown);
      assert.match(run.stderr, failure, shown);
      assert.match(
        run.stderr,
        new RegExp(`hint: Why the new program failed: (sudo )?journalctl -u ${unit}`),
        shown,
      );
      assert.deepEqual(
        beyondRecord(diffSnapshots(before, await host.snapshot()), journal),
        [],
        'the host is as before the attempt',
      );
      assert.deepEqual(
        (await listNodes(core)).map((n) => [n.software, n.connected, n.provider_ready]),
        [[`oac-node/${VERSION}`, true, true]],
        'Core lists the node ready on the previous version',
      );
      const recorded = JSON.parse(await host.shOk(`cat ${journal}`)) as {
        resources: Record<string, { props: Record<string, unknown> } | undefined>;
      };
      assert.equal(recorded.resources.program?.props.version, VERSION);
      assert.equal(recorded.resources['program-previous'], undefined, 'no kept program is left');
    }
    // The rerun of the line that installed A changes nothing: the roll back left A as it was.
    const rerun = await host.exec(['sh'], { stdin: `${first.command}\n`, timeoutMs: 600_000 });
    assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
    assert.doesNotMatch(rerun.stdout, /restarted|replaced/, rerun.stdout);
  });
});

test('UPG-02 a run killed while it keeps the previous program, or in the middle of its roll back, converges on the next run: rolled back again, ready on the previous version, no kept program left', async () => {
  const b = await exitsAtStart.build();
  await withHost(async (host, core, _dir, first) => {
    const journal = `/etc/oac-node/${first.installationId}.json`;
    await putProgram(host, b.dir);
    const install = (env: string[]) => installNew(host, core, first.installationId, env);
    // Just after the previous program is kept; just before and just after the roll back forgets
    // it (the program already put back, the service owing a restart).
    for (const point of [
      'after:record:program-previous',
      'before:forget:program-previous',
      'after:forget:program-previous',
    ]) {
      const before = await host.snapshot();
      const killed = await install([`OAC_NODE_TEST_KILL_AT=${point}`]);
      assert.ok(
        killedBySignal(killed.status),
        `${point}: killed\n${killed.stdout}\n${killed.stderr}`,
      );
      const rerun = await install([]);
      const shown = `${point}: exit ${rerun.status}\n${rerun.stdout}\n${rerun.stderr}`;
      assert.equal(rerun.status, 1, shown);
      assert.match(rerun.stderr, /; rolled back: the node runs oac-node \S+ again/, shown);
      assert.deepEqual(
        (await listNodes(core)).map((n) => [n.software, n.connected, n.provider_ready]),
        [[`oac-node/${VERSION}`, true, true]],
        point,
      );
      assert.deepEqual(
        beyondRecord(diffSnapshots(before, await host.snapshot()), journal),
        [],
        point,
      );
      const recorded = JSON.parse(await host.shOk(`cat ${journal}`)) as {
        resources: Record<string, { props: Record<string, unknown> } | undefined>;
      };
      assert.equal(recorded.resources.program?.props.version, VERSION, point);
      assert.equal(recorded.resources['program-previous'], undefined, point);
    }
  });
});
