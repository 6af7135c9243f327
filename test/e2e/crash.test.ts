// The crash matrix on a real host (issue #5 item 4, issue #28 item 2; RERUN-03, RERUN-04, UNI-06,
// HOST-05): the installer is killed with SIGKILL just before or just after a journal write (the
// journal's OAC_NODE_TEST_KILL_AT fault point, src/host/journal-points.ts, by label such as
// `before:record:unit`), and then
//   - a rerun of the same command converges to the host a clean install makes, and
//   - an uninstall (after Core removed the node, when it had registered) returns the host to
//     its state before the install.
// The same is done to the uninstaller: killed at one of its journal writes, a rerun completes.
//
// Which points run here. Every journal point of root's half (the account, the membership, the
// home, the program and its directories, the unit, the service) is killed at the host tier, on
// a scratch --root tree in about a second each (test/host/crash-root.test.ts). This test kills
// only what a real host shows:
//   - every write root's half on --root does not make: the node half's (its directories and
//     state, the Docker network, around `oac-node _prepare`: registration, Runtime image), the
//     registered node, and any other write only a full install or uninstall makes;
//   - the unit and the service (systemd for real: reload, enable, start, stop);
//   - one write of each other resource kind the journal records (account, membership, file),
//     so every recorded kind is still killed before and after its write on a real host.
// How the two tiers agree, without a file passed between them: both take root's half's points
// from the same source, `rootHalfPoints()` (test/helpers/crash-points.ts: root's half installed
// and uninstalled on a fresh scratch tree with OAC_NODE_TEST_JOURNAL_TRACE_FD, the trace the host
// tier iterates over), and this test traces a real install and uninstall in the host. A label of
// the real trace that root's half does not write is killed here, so a new journal write is
// killed somewhere as soon as it exists, whichever half makes it; the test asserts that the
// union of both tiers' points covers every label of the real traces (each written once: the
// hook kills at the first write of a label), and prints which points run where.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { removeNodesInCore } from './harness/core-nodes.ts';
import { hostWithCore } from './harness/core-pair.ts';
import { installByLine, issueToken } from './harness/enroll.ts';
import { diffSnapshots, type HostSnapshot } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';
import { rootHalfPoints, traceLabels } from '../helpers/crash-points.ts';

const release = testRelease();
const pair = hostWithCore(async () => ['--release-dir', await release.dir()]);
let installer: string[]; // the installer the line kept, NODE_OPTIONS cleared
let uninstall: string[];
let installArgs: string[];
/** After one clean install and uninstall: the Runtime image is kept in Docker from then on. */
let baseline: HostSnapshot;
/** A clean install's host, in the shape every converged rerun must have. */
let clean: HostSnapshot;
/** The labels of a clean install's and uninstall's journal writes in this host, in order. */
const real = { install: [] as string[], uninstall: [] as string[] };
/** The kind of each resource key the journal records (account, membership, directory …). */
let kindOf: Record<string, string> = {};
/** The labels the host tier kills (root's half on --root). */
let hostTier: { install: string[]; uninstall: string[] };
const TRACE = '/root/journal-trace';

before(async () => {
  const { host, core } = await pair.boot();
  hostTier = await rootHalfPoints();
  const first = await installByLine(host, core);
  uninstall = first.uninstall;
  installer = uninstall.slice(0, 4); // env -u NODE_OPTIONS <installer>
  installArgs = ['install', '--core-url', core.coreUrl, '--installation-id', first.installationId];
  clean = await host.snapshot();
  const journal = `/etc/oac-node/${first.installationId}.json`;
  const recorded = JSON.parse(await host.shOk(`cat ${journal}`)) as {
    resources: Record<string, { kind: string }>;
  };
  kindOf = Object.fromEntries(Object.entries(recorded.resources).map(([k, r]) => [k, r.kind]));
  await removeListedNodes();
  real.uninstall = await traced('uninstall');
  baseline = await host.snapshot();
  real.install = await traced('install', `${await token()}\n`);
  await uninstallToBaseline('after the traced install');
});

const token = async (): Promise<string> => (await issueToken(pair.core)).token;
const removeListedNodes = () => removeNodesInCore(pair.core);

/** The kept installer as root, NODE_OPTIONS cleared, with `env` (VAR=value) before it. */
function installerArgv(args: string[], env: string[] = []): string[] {
  const [, , , exe] = installer;
  return ['env', '-u', 'NODE_OPTIONS', ...env, exe as string, ...args];
}

function uninstallArgv(env: string[] = []): string[] {
  const [, , , , ...args] = uninstall;
  return installerArgv(args, env);
}

/** Runs the installer (with `stdin`) or the uninstaller to completion with the journal trace
 *  on, and returns its labels. */
async function traced(what: 'install' | 'uninstall', stdin?: string): Promise<string[]> {
  const trace = ['OAC_NODE_TEST_JOURNAL_TRACE_FD=3'];
  const argv = what === 'install' ? installerArgv(installArgs, trace) : uninstallArgv(trace);
  // The trace on descriptor 3, opened by the host's shell (the hook takes no path).
  const withTrace = ['sh', '-c', `exec "$@" 3>>${TRACE}`, 'sh', ...argv];
  const run = await pair.host.exec(withTrace, { stdin, timeoutMs: 300_000 });
  assert.equal(run.status, 0, `traced ${what}\n${run.stdout}\n${run.stderr}`);
  const labels = traceLabels(await pair.host.shOk(`cat ${TRACE}`));
  await pair.host.shOk(`rm -f ${TRACE}`);
  return labels;
}

/** The installer as root with the token on stdin, killed at `point` when it is given. */
function runInstaller(args: string[], stdin: string, point?: string) {
  const env = point === undefined ? [] : [`OAC_NODE_TEST_KILL_AT=${point}`];
  return pair.host.exec(installerArgv(args, env), { stdin, timeoutMs: 300_000 });
}

/** The key a label names (`record:account:oac-node`: `account:oac-node`), if any. */
const keyOf = (label: string): string | undefined =>
  /^(intend|record|forget):(.+)$/.exec(label)?.[2];

/** The points this test kills, from a real trace: what root's half on --root does not write,
 *  every write of the unit and the service, and one `verb` write (before and after) of each
 *  recorded kind not covered yet. In trace order. */
function realHostLabels(full: string[], rootHalf: string[], verb: 'record' | 'forget'): string[] {
  const kind = (label: string) => kindOf[keyOf(label) ?? ''];
  const chosen = new Set(
    full.filter((l) => !rootHalf.includes(l) || kind(l) === 'unit' || kind(l) === 'service'),
  );
  for (const k of new Set(Object.values(kindOf))) {
    if ([...chosen].some((l) => kind(l) === k)) continue;
    const pick = full.find((l) => l.startsWith(`${verb}:`) && kind(l) === k);
    if (pick !== undefined) chosen.add(pick);
  }
  return full.filter((l) => chosen.has(l));
}

/** Asserts that both tiers together kill every write of the real trace, and prints where. */
function pointsOf(what: 'install' | 'uninstall', verb: 'record' | 'forget'): string[] {
  const full = real[what];
  assert.equal(new Set(full).size, full.length, `a label written twice: ${full.join(' ')}`);
  const labels = realHostLabels(full, hostTier[what], verb);
  const nowhere = full.filter((l) => !labels.includes(l) && !hostTier[what].includes(l));
  assert.deepEqual(nowhere, [], `${what}: journal writes killed in neither tier`);
  for (const k of new Set(Object.values(kindOf)))
    assert.ok(
      labels.some((l) => kindOf[keyOf(l) ?? ''] === k),
      `${what}: no point of a ${k} on the real host`,
    );
  const sides = (ls: string[]) => ls.flatMap((l) => [`before:${l}`, `after:${l}`]);
  console.log(
    `crash matrix: ${what} writes its journal ${full.length} times: ${full.join(' ')}\n` +
      `  host tier (test/host/crash-root.test.ts, --root): ${sides(hostTier[what]).join(' ')}\n` +
      `  e2e host (this test): ${sides(labels).join(' ')}`,
  );
  return sides(labels);
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
  // Core removes the node first (when one registered): the uninstaller would otherwise start
  // once only to hear that Core still lists it (UNI-01, tested in uninstall.test.ts).
  await removeListedNodes();
  const run = await pair.host.exec(uninstall);
  assert.equal(run.status, 0, `${why}: uninstall\n${run.stdout}\n${run.stderr}`);
  assert.deepEqual(diffSnapshots(baseline, await pair.host.snapshot()), [], `${why}: uninstall`);
}

test('RERUN-03 RERUN-04 UNI-06 HOST-05 install killed at every journal point only a real host shows: a rerun converges to a clean install, an uninstall to the host before', async () => {
  const points = pointsOf('install', 'record');
  for (const point of points) {
    const killed = await runInstaller(installArgs, `${await token()}\n`, point);
    assert.ok(killedBySignal(killed.status), `${point}: ${killed.stdout}\n${killed.stderr}`);

    // Rerun: the same command again (its token, still unused or already used, on stdin).
    const rerun = await runInstaller(installArgs, `${await token()}\n`);
    assert.equal(rerun.status, 0, `${point}: rerun\n${rerun.stdout}\n${rerun.stderr}`);
    assert.deepEqual(
      diffSnapshots(shape(clean), shape(await pair.host.snapshot())),
      [],
      `${point}: the rerun converged to a clean install`,
    );
    await uninstallToBaseline(`${point} then rerun`);

    // Uninstall straight after the kill.
    const again = await runInstaller(installArgs, `${await token()}\n`, point);
    assert.ok(killedBySignal(again.status), `${point} (second kill)`);
    await uninstallToBaseline(`${point} then uninstall`);
  }
  console.log(`crash matrix: install killed at ${points.length} points in the e2e host`);
});

test('UNI-06 uninstall killed at every journal point only a real host shows: a rerun completes and leaves the host as before', async () => {
  const points = pointsOf('uninstall', 'forget');
  for (const point of points) {
    const installed = await runInstaller(installArgs, `${await token()}\n`);
    assert.equal(installed.status, 0, `${installed.stdout}\n${installed.stderr}`);
    await removeListedNodes();
    const killed = await pair.host.exec(uninstallArgv([`OAC_NODE_TEST_KILL_AT=${point}`]));
    assert.ok(killedBySignal(killed.status), `${point}: ${killed.stdout}\n${killed.stderr}`);
    await uninstallToBaseline(`uninstall killed ${point}, then rerun`);
  }
  console.log(`crash matrix: uninstall killed at ${points.length} points in the e2e host`);
});
