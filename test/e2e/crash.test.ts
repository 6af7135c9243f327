// Issue #5 item 4, the crash matrix (RERUN-03, RERUN-04, UNI-06, HOST-05): the installer is
// killed with SIGKILL just before and just after every journal write (the journal's
// OAC_NODE_TEST_KILL_AT fault point, records/journal.ts), and then
//   - a rerun of the same command converges to the host a clean install makes, and
//   - an uninstall (after Core removed the node, when it had registered) returns the host to
//     its state before the install.
// The same is done to the uninstaller: killed at each of its journal writes, a rerun completes.
// Each test prints how many points it covered.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bootHost, type E2eHost } from './harness/host.ts';
import { diffSnapshots, type HostSnapshot } from './harness/snapshot.ts';
import { startCoreInHost, type CoreInHost } from './helpers/core-in-host.ts';
import { installByLine } from './helpers/install-line.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
let host: E2eHost;
let core: CoreInHost;
let installer: string[]; // the installer the line kept, NODE_OPTIONS cleared
let uninstall: string[];
let installArgs: string[];
/** After one clean install and uninstall: the Runtime image is kept in Docker from then on. */
let baseline: HostSnapshot;
/** A clean install's host, in the shape every converged rerun must have. */
let clean: HostSnapshot;

before(async () => {
  host = await bootHost();
  core = await startCoreInHost(host, ['--release-dir', await release.dir()]);
  const first = await installByLine(host, core);
  uninstall = first.uninstall;
  installer = uninstall.slice(0, 4); // env -u NODE_OPTIONS <installer>
  installArgs = ['install', '--core-url', core.coreUrl, '--installation-id', first.installationId];
  clean = await host.snapshot();
  await removeListedNodes();
  const removed = await host.exec(uninstall);
  assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
  baseline = await host.snapshot();
});
after(async () => {
  await core?.stop();
  await host?.stop();
});

async function token(): Promise<string> {
  const r = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
  return (r.body as { token: string }).token;
}

async function removeListedNodes(): Promise<void> {
  const r = await core.coreApi('GET', '/core/v1/sandbox/nodes');
  for (const node of (r.body as { nodes: Array<{ node_id: string }> }).nodes) {
    assert.equal(
      (await core.coreApi('DELETE', `/core/v1/sandbox/nodes/${node.node_id}`)).status,
      204,
    );
  }
}

/** The installer as root with the token on stdin, killed at `point` when it is given. */
function runInstaller(args: string[], stdin: string, point?: string) {
  const env = point === undefined ? [] : [`OAC_NODE_TEST_KILL_AT=${point}`];
  const [, , , exe] = installer;
  return host.exec(['env', '-u', 'NODE_OPTIONS', ...env, exe as string, ...args], {
    stdin,
    timeoutMs: 300_000,
  });
}

/** What a converged host must equal: everything but per-install values (the node's identity,
 *  the journal's timestamps) and modification times. */
function shape(s: HostSnapshot): HostSnapshot {
  const trees = Object.fromEntries(
    Object.entries(s.trees).map(([dir, entries]) => [
      dir,
      entries === null
        ? null
        : Object.fromEntries(
            Object.entries(entries).map(([rel, e]) => {
              const perInstall =
                rel.endsWith('identity.json') ||
                rel.endsWith('.lock.owner') ||
                rel.endsWith('digests.json') || // the node files' stamps: inodes and times
                dir === '/etc/oac-node';
              const { mtime: _mtime, sha256, ...rest } = e;
              return [rel, perInstall ? rest : { ...rest, sha256 }];
            }),
          ),
    ]),
  );
  return { ...s, trees };
}

/** The run died of SIGKILL: `timeout` inside the host re-raises its child's signal, so this
 *  machine sees the exec end by a signal (status null); a shell would say 128 + 9. */
const killedBySignal = (status: number | null): boolean => status === null || status === 137;

async function uninstallToBaseline(why: string): Promise<void> {
  let run = await host.exec(uninstall);
  if (run.status !== 0 && /Core still lists this node/.test(run.stderr)) {
    await removeListedNodes();
    run = await host.exec(uninstall);
  }
  assert.equal(run.status, 0, `${why}: uninstall\n${run.stdout}\n${run.stderr}`);
  assert.deepEqual(diffSnapshots(baseline, await host.snapshot()), [], `${why}: uninstall`);
}

test('RERUN-03 RERUN-04 UNI-06 install killed at every journal point: a rerun converges to a clean install, an uninstall to the host before', async () => {
  const covered: string[] = [];
  for (let n = 1; n < 100; n += 1) {
    let ended = false;
    for (const when of ['before', 'after'] as const) {
      const point = `${when}:${n}`;
      const killed = await runInstaller(installArgs, `${await token()}\n`, point);
      if (killed.status === 0) {
        ended = true; // fewer writes than n: every point is covered
        await uninstallToBaseline(`after the point-free run ${point}`);
        break;
      }
      assert.ok(killedBySignal(killed.status), `${point}: ${killed.stdout}\n${killed.stderr}`);
      covered.push(point);

      // Rerun: the same command again (its token, still unused or already used, on stdin).
      const rerun = await runInstaller(installArgs, `${await token()}\n`);
      assert.equal(rerun.status, 0, `${point}: rerun\n${rerun.stdout}\n${rerun.stderr}`);
      assert.deepEqual(
        diffSnapshots(shape(clean), shape(await host.snapshot())),
        [],
        `${point}: the rerun converged to a clean install`,
      );
      await uninstallToBaseline(`${point} then rerun`);

      // Uninstall straight after the kill.
      const again = await runInstaller(installArgs, `${await token()}\n`, point);
      assert.ok(killedBySignal(again.status), `${point} (second kill)`);
      await uninstallToBaseline(`${point} then uninstall`);
    }
    if (ended) break;
  }
  console.log(
    `crash matrix: install killed at ${covered.length} journal points: ${covered.join(' ')}`,
  );
  assert.ok(
    covered.length >= 10,
    `the install writes its journal at least 5 times (${covered.length})`,
  );
});

test('UNI-06 uninstall killed at every journal point: a rerun completes and leaves the host as before', async () => {
  const covered: string[] = [];
  for (let n = 1; n < 100; n += 1) {
    let ended = false;
    for (const when of ['before', 'after'] as const) {
      const point = `${when}:${n}`;
      const installed = await runInstaller(installArgs, `${await token()}\n`);
      assert.equal(installed.status, 0, `${installed.stdout}\n${installed.stderr}`);
      await removeListedNodes();
      const [, , , exe, ...args] = uninstall;
      const killed = await host.exec([
        'env',
        '-u',
        'NODE_OPTIONS',
        `OAC_NODE_TEST_KILL_AT=${point}`,
        exe as string,
        ...args,
      ]);
      if (killed.status === 0) {
        ended = true;
        assert.deepEqual(diffSnapshots(baseline, await host.snapshot()), []);
        break;
      }
      assert.ok(killedBySignal(killed.status), `${point}: ${killed.stdout}\n${killed.stderr}`);
      covered.push(point);
      await uninstallToBaseline(`uninstall killed ${point}, then rerun`);
    }
    if (ended) break;
  }
  console.log(
    `crash matrix: uninstall killed at ${covered.length} journal points: ${covered.join(' ')}`,
  );
  assert.ok(covered.length >= 4, `uninstall writes its journal at least twice (${covered.length})`);
});
