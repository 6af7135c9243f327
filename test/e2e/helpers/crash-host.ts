// The e2e crash matrix (issue #5 item 4, issue #28 items 2 and 4; RERUN-03, RERUN-04, UNI-06,
// HOST-05), run by crash-1.test.ts and crash-2.test.ts, each on its own host and Core with half
// of the points, so that the two halves run on both e2e lanes at once (one file would take about
// twice as long as each half, measured in docs/e2e-hosts.md). At each install point:
//   - the installer is killed there (SIGKILL just before or just after the journal write, the
//     journal's OAC_NODE_TEST_KILL_AT, src/host/journal-points.ts), a rerun of the same command
//     converges to the host a clean install makes, and then the uninstaller of that converged
//     install is killed at one of its own points (the next in turn, while any is left) and its
//     rerun returns the host to its state before the install (after Core removed the node);
//   - the installer is killed there again, and an uninstall straight after it returns the host
//     to its state before.
// The uninstall points ride on the install points' converged installs (issue #28: each was a
// fresh install of its own before), each killed once; those beyond the install points (10
// uninstall points a file, 8 install points) each get a clean install of their own.
//
// Which points run here (issue #28 item 2: the e2e host keeps the points only a real host can
// show). Every journal point of root's half (the account, the membership, the home, the program
// and its directories, the unit, the service) is killed at the host tier, on a scratch --root
// tree in about a second each (test/host/crash-root.test.ts). The e2e files kill, just before and
// just after each write (realHostLabels below):
//   - every write root's half on --root does not make: the node half's (its directories and
//     state, the Docker network, around `oac-node _prepare`), the registered node, and any other
//     write only a full install or uninstall makes. Killed nowhere else;
//   - for each recorded kind (RecordedKind, src/resources/resources.ts) none of those is of, its
//     first `record:` write (install: the resource made, not yet recorded; then recorded) or
//     `forget:` write (uninstall): the account, the membership, the program (a file), the unit
//     and the service (systemd for real: reload, enable, start, stop), so every recorded kind is
//     still killed before and after its write on a real host. Their `intend:` writes (nothing
//     of the resource made yet) run at the host tier only.
// No fewer satisfy the rule, since every point must be killed somewhere and the host tier makes
// none of the first; today: install 8 writes (16 points; 28 before the node half's resources
// were intended in one write and recorded in one), uninstall 10 (20 points).
// How the two tiers agree, without a file passed between them: both take root's half's points
// from the same source, `rootHalfPoints()` (test/helpers/crash-points.ts: root's half installed
// and uninstalled on a fresh scratch tree with OAC_NODE_TEST_JOURNAL_TRACE_FD, the trace the host
// tier iterates over), and the e2e files trace a real install and uninstall in the host. A label
// of the real trace that root's half does not write is killed here, so a new journal write is
// killed somewhere as soon as it exists, whichever half makes it. Each file asserts the rule
// (pointsOf: every label of its real trace killed in one tier or the other, each written once,
// since the hook kills at the first write of a label; every write only a real host makes, and
// a write of every recorded kind, killed here) and prints which points run where.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { removeNodesInCore } from '../harness/core-nodes.ts';
import { hostWithCore } from '../harness/core-pair.ts';
import { installByLine, issueToken } from '../harness/enroll.ts';
import { diffSnapshots, type HostSnapshot } from '../harness/snapshot.ts';
import { rootHalfPoints, traceLabels } from '../../helpers/crash-points.ts';
import type { RecordedKind } from '../../../src/resources/resources.ts';
import { testRelease } from './release.ts';

export type Command = 'install' | 'uninstall';

export interface CrashHost {
  /** Boots the host, installs by the line, and traces an uninstall and an install. */
  boot(): Promise<void>;
  /** The points this file kills in the host, `before:`/`after:` each label; printed. */
  points(what: Command): string[];
  /** The kept installer's install, with a fresh token, killed at `point` when given. */
  install(point?: string): ReturnType<CrashHost['run']>;
  /** The uninstaller (Core has removed the node), killed at `point` when given. */
  uninstall(point?: string): ReturnType<CrashHost['run']>;
  run(
    argv: string[],
    stdin?: string,
  ): Promise<{ status: number | null; stdout: string; stderr: string }>;
  /** Core removes the node, the uninstaller runs, and the host equals the baseline. */
  uninstallToBaseline(why: string): Promise<void>;
  /** Asserts that the host has a clean install's shape. */
  assertClean(why: string): Promise<void>;
  /** Core removes every node it lists. */
  removeListedNodes(): Promise<unknown>;
}

const TRACE = '/root/journal-trace';

export function crashHost(): CrashHost {
  const release = testRelease({ testHooks: true });
  const pair = hostWithCore(async () => ['--release-dir', await release.dir()]);
  let uninstallLine: string[] = []; // env -u NODE_OPTIONS <installer> uninstall …
  let installArgs: string[] = [];
  /** After one clean install and uninstall: the Runtime image is kept in Docker from then on. */
  let baseline: HostSnapshot | undefined;
  /** A clean install's host, in the shape every converged rerun must have. */
  let clean: HostSnapshot | undefined;
  /** A clean install's journal: each resource's kind and ownership (owned or adopted), by key.
   *  The snapshot's shape sets the journal file aside (timestamps, identity); this does not. */
  let cleanJournal: Record<string, string> = {};
  let journalPath = '';
  /** The labels of a clean install's and uninstall's journal writes in this host, in order. */
  const real: Record<Command, string[]> = { install: [], uninstall: [] };
  /** The kind of each resource key the journal records (account, membership, directory …). */
  let kindOf: Record<string, string> = {};
  /** The labels the host tier kills (root's half on --root). */
  let hostTier: Record<Command, string[]> = { install: [], uninstall: [] };

  const removeListedNodes = () => removeNodesInCore(pair.core);
  const token = async (): Promise<string> => (await issueToken(pair.core)).token;

  /** The kept installer as root, NODE_OPTIONS cleared, with `env` (VAR=value) before it. */
  function installerArgv(args: string[], env: string[] = []): string[] {
    const [, , , exe] = uninstallLine;
    return ['env', '-u', 'NODE_OPTIONS', ...env, exe as string, ...args];
  }
  const uninstallArgv = (env: string[] = []) => installerArgv(uninstallLine.slice(4), env);
  const killAt = (point?: string) =>
    point === undefined ? [] : [`OAC_NODE_TEST_KILL_AT=${point}`];
  const run: CrashHost['run'] = (argv, stdin) =>
    pair.host.exec(argv, { stdin, timeoutMs: 300_000 });
  const install = async (point?: string) =>
    run(installerArgv(installArgs, killAt(point)), `${await token()}\n`);
  const uninstall = (point?: string) => run(uninstallArgv(killAt(point)));

  /** Runs `what` to completion with the journal trace on, and returns its labels. */
  async function traced(what: Command): Promise<string[]> {
    const trace = ['OAC_NODE_TEST_JOURNAL_TRACE_FD=3'];
    const argv = what === 'install' ? installerArgv(installArgs, trace) : uninstallArgv(trace);
    // The trace on descriptor 3, opened by the host's shell (the hook takes no path).
    const withTrace = ['sh', '-c', `exec "$@" 3>>${TRACE}`, 'sh', ...argv];
    const done = await run(withTrace, what === 'install' ? `${await token()}\n` : undefined);
    assert.equal(done.status, 0, `traced ${what}\n${done.stdout}\n${done.stderr}`);
    const labels = traceLabels(await pair.host.shOk(`cat ${TRACE}`));
    await pair.host.shOk(`rm -f ${TRACE}`);
    return labels;
  }

  async function readJournal(): Promise<Journal> {
    return JSON.parse(await pair.host.shOk(`cat ${journalPath}`)) as Journal;
  }

  async function uninstallToBaseline(why: string): Promise<void> {
    // Core removes the node first (when one registered): the uninstaller would otherwise start
    // once only to hear that Core still lists it (UNI-01, tested in uninstall.test.ts).
    await removeListedNodes();
    const done = await uninstall();
    assert.equal(done.status, 0, `${why}: uninstall\n${done.stdout}\n${done.stderr}`);
    const now = await pair.host.snapshot();
    assert.deepEqual(diffSnapshots(baseline as HostSnapshot, now), [], `${why}: uninstall`);
  }

  return {
    async boot() {
      const { host, core } = await pair.boot();
      hostTier = await rootHalfPoints();
      const first = await installByLine(host, core);
      uninstallLine = first.uninstall;
      installArgs = [
        'install',
        '--core-url',
        core.coreUrl,
        '--installation-id',
        first.installationId,
      ];
      clean = await host.snapshot();
      journalPath = `/etc/oac-node/${first.installationId}.json`;
      const recorded = await readJournal();
      kindOf = Object.fromEntries(Object.entries(recorded.resources).map(([k, r]) => [k, r.kind]));
      cleanJournal = ownershipOf(recorded);
      await removeListedNodes();
      real.uninstall = await traced('uninstall');
      baseline = await host.snapshot();
      real.install = await traced('install');
      await uninstallToBaseline('after the traced install');
    },
    points(what) {
      return pointsOf(what, real[what], hostTier[what], kindOf);
    },
    install,
    uninstall,
    run,
    uninstallToBaseline,
    async assertClean(why) {
      const now = await pair.host.snapshot();
      assert.deepEqual(diffSnapshots(shape(clean as HostSnapshot), shape(now)), [], why);
      // A rerun that recorded a resource it made as adopted would leave it behind at uninstall.
      assert.deepEqual(ownershipOf(await readJournal()), cleanJournal, `${why}: the journal`);
    },
    removeListedNodes,
  };
}

interface Journal {
  resources: Record<string, { kind: string; ownership?: string }>;
}

/** `kind ownership` of each resource the journal records, by key. */
const ownershipOf = (journal: Journal): Record<string, string> =>
  Object.fromEntries(
    Object.entries(journal.resources).map(([key, r]) => [key, `${r.kind} ${r.ownership ?? '-'}`]),
  );

/** The keys a label names (`record:account:oac-node`: `account:oac-node`; one write of several,
 *  `intend:state+network`: both), if any. */
const keysOf = (label: string): string[] =>
  /^(intend|record|forget):(.+)$/.exec(label)?.[2]?.split('+') ?? [];

/** The kinds of the resources a label writes (none for `registered-node`). */
const kindsOf = (label: string, kindOf: Record<string, string>): string[] => [
  ...new Set(keysOf(label).flatMap((key) => kindOf[key] ?? [])),
];

/** Every kind the journal records (RecordedKind, src/resources/resources.ts): the e2e host kills
 *  each before and after one of its writes. A kind added there fails to compile here. */
const RECORDED: Record<RecordedKind, true> = {
  account: true,
  membership: true,
  directory: true,
  file: true,
  unit: true,
  service: true,
  network: true,
};
const RECORDED_KINDS = Object.keys(RECORDED) as RecordedKind[];

/** The e2e host's labels of `what` (each killed just before and just after its write), in trace
 *  order, by why they run here:
 *  - `realOnly`: every write root's half on --root does not make (the node half's directories,
 *    state and network around `oac-node _prepare`, the registered node, and whatever else only
 *    a full install or uninstall writes): killed nowhere else;
 *  - `perKind`: for each recorded kind none of those is of, its first write (`record:` for an
 *    install, the resource made and then recorded; `forget:` for an uninstall, removed and then
 *    forgotten), so that every recorded kind, the unit and the service (systemd for real)
 *    among them, is killed on a real host too. Their other writes run at the host tier only. */
function realHostLabels(
  what: Command,
  full: string[],
  rootHalf: string[],
  kindOf: Record<string, string>,
): { realOnly: string[]; perKind: Map<RecordedKind, string>; labels: string[] } {
  const verb = what === 'install' ? 'record' : 'forget';
  const of = (label: string, k: string) => kindsOf(label, kindOf).includes(k);
  const realOnly = full.filter((l) => !rootHalf.includes(l));
  const perKind = new Map<RecordedKind, string>();
  for (const k of RECORDED_KINDS) {
    if (realOnly.some((l) => of(l, k))) continue;
    const pick = full.find((l) => l.startsWith(`${verb}:`) && of(l, k));
    if (pick !== undefined) perKind.set(k, pick);
  }
  const chosen = new Set([...realOnly, ...perKind.values()]);
  return { realOnly, perKind, labels: full.filter((l) => chosen.has(l)) };
}

/** Both points of each label: `before:X after:X before:Y …`. */
const sides = (labels: string[]): string[] => labels.flatMap((l) => [`before:${l}`, `after:${l}`]);

/** The points of half `half` of the e2e matrix: every other label, with both its points, so
 *  each half has early and late points alike. */
const halfOf = (points: string[], half: 1 | 2): string[] =>
  points.filter((_, i) => Math.floor(i / 2) % 2 === half - 1);

/** The e2e host's points of `what`, after asserting the rule that chose them (issue #28 item 2):
 *  every label of the real trace is killed in one tier or the other (root's half's at the host
 *  tier, both sides of each); every write only a real host makes is killed here; every recorded
 *  kind, the unit and the service among them, is killed here just before and just after one of
 *  its writes. Prints which points run where. */
function pointsOf(
  what: Command,
  full: string[],
  rootHalf: string[],
  kindOf: Record<string, string>,
): string[] {
  assert.ok(full.length > 0, `${what}: the real trace was taken`);
  assert.equal(new Set(full).size, full.length, `a label written twice: ${full.join(' ')}`);
  const recorded = [...new Set(Object.values(kindOf))].sort();
  assert.deepEqual(recorded, [...RECORDED_KINDS].sort(), 'a clean install records every kind');
  const { realOnly, perKind, labels } = realHostLabels(what, full, rootHalf, kindOf);
  const points = sides(labels);
  const killedHere = (l: string) => points.includes(`before:${l}`) && points.includes(`after:${l}`);
  const kinds = (label: string) => kindsOf(label, kindOf);

  const nowhere = full.filter((l) => !rootHalf.includes(l) && !killedHere(l));
  assert.deepEqual(nowhere, [], `${what}: journal writes killed in neither tier`);
  assert.deepEqual(
    realOnly.filter((l) => !killedHere(l)),
    [],
    `${what}: writes only a real host makes, not killed on it`,
  );
  // The unit and the service among them: systemd for real (reload, enable, start, stop).
  for (const k of RECORDED_KINDS)
    assert.ok(
      labels.some((l) => kinds(l).includes(k) && killedHere(l)),
      `${what}: no ${k} killed just before and just after its write on the real host`,
    );

  const named = (ls: string[]) =>
    ls.map((l) => `${l} (${kinds(l).join(', ') || 'no resource'})`).join(' ');
  console.log(
    `crash matrix: ${what} writes its journal ${full.length} times: ${full.join(' ')}\n` +
      `  host tier (test/host/crash-root.test.ts, --root), before: and after: each write of root's half: ${rootHalf.join(' ')}\n` +
      `  e2e host, before: and after: each of ${labels.length} writes:\n` +
      `    only a real host writes them: ${named(realOnly)}\n` +
      `    one write of each other recorded kind: ${[...perKind].map(([k, l]) => `${k} ${l}`).join(', ')}\n` +
      `    test/e2e/crash-1.test.ts: ${halfOf(points, 1).join(' ')}\n` +
      `    test/e2e/crash-2.test.ts: ${halfOf(points, 2).join(' ')}`,
  );
  return points;
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
export const killedBySignal = (status: number | null): boolean => status === null || status === 137;

/** Registers the matrix's half `half` (1 or 2) of the points: the file's host, its before hook
 *  and its one test. The halves are every other label (halfOf), so each has early and late
 *  points alike: a point costs two installs killed there, and the later the point the longer
 *  they run. */
export function crashMatrix(half: 1 | 2): void {
  const host = crashHost();
  before(() => host.boot());
  test(`RERUN-03 RERUN-04 UNI-06 HOST-05 half ${half} of the crash matrix: installer killed at each of its e2e points (every write only a real host makes, and one of each recorded kind) converges on a rerun and uninstalls from the kill; the uninstaller killed at each of its points completes on a rerun`, async () => {
    const installPoints = halfOf(host.points('install'), half);
    const uninstallPoints = halfOf(host.points('uninstall'), half);
    const started = Date.now();
    const rounds = Math.max(installPoints.length, uninstallPoints.length);
    for (let i = 0; i < rounds; i++) {
      const point = installPoints[i];
      const uninstallPoint = uninstallPoints[i];
      if (point === undefined) {
        // More uninstall points than install points: a clean install to kill the uninstaller of.
        const done = await host.install();
        assert.equal(
          done.status,
          0,
          `install for ${uninstallPoint}\n${done.stdout}\n${done.stderr}`,
        );
      } else {
        const killed = await host.install(point);
        assert.ok(killedBySignal(killed.status), `${point}: ${killed.stdout}\n${killed.stderr}`);
        // Rerun: the same command again (its token, still unused or already used, on stdin).
        const rerun = await host.install();
        assert.equal(rerun.status, 0, `${point}: rerun\n${rerun.stdout}\n${rerun.stderr}`);
        await host.assertClean(`${point}: the rerun converged to a clean install`);
      }

      // The converged install's uninstaller, killed at one of its points, then run again.
      if (uninstallPoint !== undefined) {
        await host.removeListedNodes();
        const cut = await host.uninstall(uninstallPoint);
        assert.ok(
          killedBySignal(cut.status),
          `uninstall ${uninstallPoint}: ${cut.stdout}\n${cut.stderr}`,
        );
      }
      await host.uninstallToBaseline(
        `${point ?? 'a clean install'}${point === undefined ? '' : ' then rerun'}, then uninstall${uninstallPoint === undefined ? '' : ` killed ${uninstallPoint} and rerun`}`,
      );
      if (point === undefined) continue;

      // Uninstall straight after the kill.
      const again = await host.install(point);
      assert.ok(killedBySignal(again.status), `${point} (second kill)`);
      await host.uninstallToBaseline(`${point} then uninstall`);
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `crash matrix, half ${half}: install killed at ${installPoints.length} points, uninstall at ${uninstallPoints.length}, in the e2e host: ${seconds.toFixed(0)} s, ${(seconds / installPoints.length).toFixed(1)} s an install point`,
    );
  });
}
