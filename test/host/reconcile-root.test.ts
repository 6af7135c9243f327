// Golden --root tests in the style of systemd-sysusers: the root half of the desired
// state reconciled on a scratch tree with real useradd/usermod --prefix and systemctl --root;
// the resulting tree is compared with the expected one, a second run says only `unchanged`
// and writes nothing, and uninstall returns the tree to the initial one (DECL-01, DECL-02,
// HOST-01…06, UNI-02, UNI-03). The node half (HOST-08) is left out here: it needs Core and
// Docker, and the e2e tier runs it.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { Journal } from '../../records/journal.ts';
import { desired } from '../helpers/desired.ts';
import { sha256 } from '../../src/resources/sha256.ts';
import type { EngineEvent } from '../../src/core/events.ts';
import { applyPlanned, planAndApply, planFor } from '../../src/installation/plan-for.ts';
import { recordedResources } from '../../src/installation/recorded.ts';
import { OacError } from '../../src/errors.ts';
import { addSystemUser } from '../../src/host/accounts.ts';
import { Host } from '../../src/host/host.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { uninstall } from '../../uninstaller/uninstall.ts';
import { outcomeLines } from '../../src/cli/uninstall-output.ts';
import { nodeStatus } from '../../installer/status.ts';
import { CORE, ENV_KEY, ID, names, rootHalf as rootHalfOf } from '../helpers/root-half.ts';
import { makeScratchRoot, treeDiff, treeOf } from '../helpers/scratch-root.ts';

// The env file's digest key (issue #27 finding 5): fixed, as the file's own key on a rerun.
const KEY_LINE = `# oac-node digest key: ${ENV_KEY}`;
// useradd and gpasswd keep backups (`passwd-`) and a lock file; they are no resource of ours.
// The installer's lock (SEC-06) stays in /run/oac-node, on tmpfs until reboot, like dpkg's lock:
// unlinking a flock file lets a third process lock a new file beside a waiter. The golden test
// checks what it holds once the uninstall has released it.
const BACKUPS = /^etc\/([a-z]+-|\.pwd\.lock)$|^run\/oac-node(\/installer\.lock)?$/;
let root: string;
let program: string;

beforeEach(() => {
  root = makeScratchRoot();
  program = join(root, '..', `${root.split('/').pop()}-program`);
  writeFileSync(program, '#!/bin/sh\necho node program\n');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(program, { force: true });
});

/** The root half of desired(): everything but what the node half makes (HOST-08). */
/** The root half of desired() (test/helpers/root-half.ts) with these proxy variables. */
const rootHalf = (proxyEnv: Record<string, string> = {}) => rootHalfOf(program, proxyEnv);

async function runRoot(proxyEnv: Record<string, string> = {}, dryRun = false) {
  const host = new Host(root);
  const journal = await Journal.open(host, ID, CORE);
  if (!dryRun)
    await journal.setInputs({ provider: 'docker', group: 'docker', checkpoint_root: null });
  const events: EngineEvent[] = [];
  const emit = (e: EngineEvent) => events.push(e);
  const report = await planAndApply(
    rootHalf(proxyEnv),
    { host, layout: names, journal, emit },
    { dryRun, emit },
  );
  return {
    report,
    outcomes: Object.fromEntries(
      report.steps.map((s) => [s.step, s.result?.outcome ?? s.action.kind]),
    ),
    journal: journal.snapshot,
  };
}

const noEvents = () => undefined;
const removeAll = () =>
  uninstall({ root, installationId: ID, force: false, dryRun: false }, noEvents);

test('DECL-01 golden: install makes exactly the expected tree; a rerun is unchanged and writes nothing; uninstall restores the initial tree', async () => {
  const initial = treeOf(root, BACKUPS);
  const first = await runRoot();
  assert.deepEqual(first.outcomes, {
    'account:oac-node': 'created',
    'group-membership:docker': 'created',
    'directory:home': 'created',
    'directory:program-root': 'created',
    'directory:program': 'created',
    'program-previous': 'skipped',
    program: 'created',
    'path-command': 'created',
    'directory:man': 'created',
    'man-page': 'created',
    'proxy-settings': 'skipped',
    unit: 'created',
    service: 'created',
    'upgrade-rollback': 'skipped',
  });
  const installed = treeOf(root, BACKUPS);
  const diff = treeDiff(initial, installed);
  assert.deepEqual(diff, {
    added: [
      'etc/oac-node',
      'etc/oac-node/inst-1.json',
      'etc/systemd/system/multi-user.target.wants/oac-node-inst-1.service',
      'etc/systemd/system/oac-node-inst-1.service',
      'usr/local/lib/oac-node',
      'usr/local/lib/oac-node/inst-1',
      'usr/local/lib/oac-node/inst-1/oac-node',
      'usr/local/sbin/oac-node',
      'usr/local/share/man/man1',
      'usr/local/share/man/man1/oac-node.1',
      'var/lib/oac-node',
    ],
    removed: [],
    changed: ['etc/group', 'etc/gshadow', 'etc/passwd', 'etc/shadow'],
  });
  const nodeGid = Number(
    /^oac-node:[^:]*:65532:(\d+):/m.exec(readFileSync(join(root, 'etc/passwd'), 'utf8'))?.[1],
  );
  const meta = (path: string) => installed[path]?.split(' ').slice(0, 3).join(' ');
  assert.equal(meta('etc/oac-node'), 'dir 0700 0:0');
  assert.equal(meta('etc/oac-node/inst-1.json'), 'file 0600 0:0');
  assert.equal(meta('etc/systemd/system/oac-node-inst-1.service'), 'file 0644 0:0');
  assert.equal(meta('usr/local/lib/oac-node'), 'dir 0755 0:0');
  assert.equal(meta('usr/local/lib/oac-node/inst-1'), 'dir 0755 0:0');
  assert.equal(meta('usr/local/lib/oac-node/inst-1/oac-node'), 'file 0755 0:0');
  assert.equal(meta('usr/local/sbin/oac-node'), 'file 0755 0:0');
  assert.equal(meta('var/lib/oac-node'), `dir 0750 65532:${nodeGid}`);
  assert.match(
    installed['etc/systemd/system/multi-user.target.wants/oac-node-inst-1.service'] ?? '',
    /oac-node-inst-1\.service$/,
  );
  assert.match(
    readFileSync(join(root, 'etc/passwd'), 'utf8'),
    /^oac-node:x:65532:\d+::\/var\/lib\/oac-node:\/usr\/sbin\/nologin$/m,
  );
  assert.match(
    readFileSync(join(root, 'etc/group'), 'utf8'),
    /^docker:[^:]*:\d+:(.*,)?oac-node(,.*)?$/m,
  );
  // Every step recorded but what was skipped (no proxy settings; no program to keep, no
  // upgrade to settle).
  const skipped = Object.entries(first.outcomes).filter(([, o]) => o === 'skipped');
  assert.deepEqual(skipped.map(([k]) => k).sort(), [
    'program-previous',
    'proxy-settings',
    'upgrade-rollback',
  ]);
  for (const key of Object.keys(first.outcomes).filter((k) => first.outcomes[k] !== 'skipped'))
    assert.equal(first.journal.resources[key]?.ownership, 'owned', key);

  const journalFile = join(root, names.journal);
  const stamp = statSync(journalFile).mtimeMs;
  const second = await runRoot();
  assert.ok(
    Object.values(second.outcomes).every((o) => o === 'unchanged' || o === 'skipped'),
    JSON.stringify(second.outcomes),
  );
  assert.equal(second.report.changed, false);
  assert.equal(statSync(journalFile).mtimeMs, stamp, 'a rerun does not rewrite the journal');
  assert.deepEqual(treeOf(root, BACKUPS), installed, 'a rerun changes nothing');

  await removeAll();
  assert.deepEqual(treeDiff(initial, treeOf(root, BACKUPS)), {
    added: [],
    removed: [],
    changed: [],
  });
  assert.deepEqual(treeOf(join(root, 'run')), {
    lock: 'dir 0755 0:0',
    'oac-node': 'dir 0700 0:0',
    'oac-node/installer.lock': 'file 0600 0:0 e3b0c44298fc',
  });
  assert.equal(
    readFileSync(join(root, 'usr/local/lib/python3/dist-packages/bystander.py'), 'utf8'),
    'print(1)\n',
  );
});

test("UNI-02 UNI-03 two records on one host: uninstalling one keeps what the other's record still lists (account, group, home); the other then keeps what it only adopted", async () => {
  await runRoot();
  const otherId = parseInstallationId('inst-2');
  const other = layout(otherId);
  const host = new Host(root);
  const otherJournal = await Journal.open(host, otherId, CORE);
  await otherJournal.setInputs({ provider: 'docker', group: 'docker', checkpoint_root: null });
  const otherHalf = desired({
    layout: other,
    provider: 'docker',
    group: 'docker',
    coreUrl: CORE,
    corePin: null,
    proxyEnv: {},
    envKey: ENV_KEY,
    program: { source: program, sha256: sha256(readFileSync(program)) },
  }).filter((r) => r.phase !== 'prepare');
  // A second record (install itself refuses a second installation, HOST-10; a record can still
  // be left on a host): it finds the account, group and home there, and adopts them.
  await planAndApply(
    otherHalf,
    { host, layout: other, journal: otherJournal, emit: noEvents },
    { dryRun: false, emit: noEvents },
  );
  assert.equal(otherJournal.get('account:oac-node')?.ownership, 'adopted');

  const { kept } = await removeAll();
  const stays = "(another installation's node remains)";
  for (const what of ['user oac-node', 'oac-node in docker', '/var/lib/oac-node'])
    assert.ok(kept.includes(`${what} ${stays}`), `${what} kept:\n${kept.join('\n')}`);
  for (const gone of [names.unitPath, names.program, names.journal])
    assert.equal(existsSync(join(root, gone)), false, `${gone} removed`);
  for (const stays of [other.unitPath, other.program, other.journal, '/var/lib/oac-node'])
    assert.ok(existsSync(join(root, stays)), `${stays} kept`);
  assert.match(readFileSync(join(root, 'etc/group'), 'utf8'), /^docker:.*oac-node/m);

  const last = await uninstall(
    { root, installationId: otherId, force: false, dryRun: false },
    noEvents,
  );
  // UNI-03: what this record only adopted stays, said so; its own unit and program go.
  assert.ok(last.kept.includes('user oac-node (adopted: it was there before the installer)'));
  for (const gone of [other.unitPath, other.program, other.journal])
    assert.equal(existsSync(join(root, gone)), false, `${gone} removed`);
  assert.ok(existsSync(join(root, 'var/lib/oac-node')), 'the adopted home stays');
});

test('UNI-02 an ID this host has no record of (mistyped): nothing changes, and the line says so and names the ID it does record (issue #25)', async () => {
  await runRoot();
  const before = treeOf(root, BACKUPS);
  const typo = parseInstallationId('inst-9');
  for (const dryRun of [true, false]) {
    const events: EngineEvent[] = [];
    const result = await uninstall({ root, installationId: typo, force: false, dryRun }, (e) =>
      events.push(e),
    );
    // Issue #39: no row per resource "not made by this installation": only what is named (the
    // account and home another record made, kept) and the record's own step.
    const rows = events.flatMap((e) => (e.type === 'step-plan' ? [e.action.detail] : []));
    assert.ok(
      rows.every((detail) => !detail.includes('not made by this installation')),
      rows.join('\n'),
    );
    assert.deepEqual(
      treeDiff(before, treeOf(root, BACKUPS)),
      { added: [], removed: [], changed: [] },
      'nothing changed',
    );
    assert.equal(result.recorded, false);
    assert.equal(result.report.changed, false);
    assert.deepEqual(outcomeLines(typo, result, dryRun), [
      ...(dryRun ? ['Nothing would change.'] : []),
      `This host has no record of installation inst-9, and nothing ${dryRun ? 'would be' : 'was'} removed.`,
      `This host records installation ${ID}: check the ID (sudo ls /etc/oac-node).`,
    ]);
  }
  await removeAll();
  const none = await uninstall({ root, installationId: ID, force: false, dryRun: false }, noEvents);
  assert.deepEqual(outcomeLines(ID, none, false), [
    `This host has no record of installation ${ID}, and nothing was removed.`,
    'This host records no installation of oac-node.',
  ]);
});

/** The node half's network, recorded as ours, as an install that reached it leaves it. */
async function recordNetwork(host: Host): Promise<Journal> {
  const journal = await Journal.open(host, ID, CORE);
  await journal.record('network', {
    kind: 'network',
    name: names.network,
    ownership: 'owned',
    props: {},
  });
  return journal;
}

test('UNI-02 issue #38 uninstall while Docker does not answer: the plan refuses on the network it cannot check, before its first removal; nothing changes, the record included; once Docker answers the run finishes', async () => {
  await runRoot();
  // The node half's network, recorded as ours, as an install that reached it leaves it. There
  // is no Docker socket on the scratch tree, but Docker is installed (its daemon's program):
  // Docker does not answer.
  mkdirSync(join(root, 'usr/sbin'), { recursive: true });
  writeFileSync(join(root, 'usr/sbin/dockerd'), '');
  const host = new Host(root);
  const journal = await recordNetwork(host);
  const before = treeOf(root, BACKUPS);
  const events: EngineEvent[] = [];
  const request = { root, installationId: ID, force: true, dryRun: false };
  await assert.rejects(
    uninstall(request, (e) => events.push(e)),
    (e: unknown) =>
      e instanceof OacError &&
      e.code === 'docker_unavailable' &&
      e.message === 'Docker Engine is not installed, or Docker is not running',
  );
  assert.deepEqual(
    treeDiff(before, treeOf(root, BACKUPS)),
    { added: [], removed: [], changed: [] },
    'nothing removed, the record as it was',
  );
  const failed = events.filter((e) => e.type === 'step-failed').map((e) => e.step);
  assert.deepEqual(failed, ['network'], 'the network step says why');
  // A dry run shows every step and the refusal, and changes nothing either.
  const preview = await uninstall({ ...request, dryRun: true }, noEvents).catch((e: unknown) => e);
  assert.ok(preview instanceof OacError && preview.code === 'docker_unavailable');
  assert.deepEqual(treeDiff(before, treeOf(root, BACKUPS)), {
    added: [],
    removed: [],
    changed: [],
  });
  // Docker answers again (here: the network is known gone, its record dropped as a killed run's
  // would be by the node half): the uninstall finishes.
  await journal.forget('network');
  await uninstall(request, noEvents);
  assert.equal(existsSync(join(root, names.journal)), false, 'the record is gone');
});

test('issue #38 DECL-01 DECL-06 an install whose record lists a network it no longer wants (its Core switched to microsandbox) while Docker does not answer: one plan, the removal refused before the first write, every wanted step shown by a dry run; nothing changes, the record included', async () => {
  await runRoot();
  mkdirSync(join(root, 'usr/sbin'), { recursive: true });
  writeFileSync(join(root, 'usr/sbin/dockerd'), '');
  const host = new Host(root);
  const journal = await recordNetwork(host);
  // What the record lists and the desired value does not want, as installer/install-plan.ts
  // computes it: here the network alone.
  const wanted = rootHalf();
  const keys = new Set(wanted.map((r) => r.key));
  const stale = recordedResources(names, journal.snapshot).filter((r) => !keys.has(r.key));
  assert.deepEqual(
    stale.map((r) => r.key),
    ['network'],
  );
  // A proxy setting wanted now: the plan would write, if the removal did not refuse.
  const changed = rootHalf({ https_proxy: 'http://proxy.example:3128' });
  const before = treeOf(root, BACKUPS);
  const events: EngineEvent[] = [];
  const emit = (e: EngineEvent) => events.push(e);
  const ctx = { host, layout: names, journal, emit };
  const planned = await planFor('install', { wanted: changed, removals: stale }, ctx);
  assert.deepEqual(
    planned.diagnostics.map((d) => d.code),
    ['docker_unavailable'],
  );
  assert.deepEqual(
    planned.removal.steps.map((s) => [s.resource.key, s.action.kind]),
    [['network', 'refuse']],
  );
  const refused = (e: unknown) => e instanceof OacError && e.code === 'docker_unavailable';
  await assert.rejects(applyPlanned(planned, ctx, { dryRun: false, emit }), refused);
  assert.deepEqual(
    treeDiff(before, treeOf(root, BACKUPS)),
    { added: [], removed: [], changed: [] },
    'nothing written, not even the proxy settings the plan wanted',
  );
  const failed = events.filter((e) => e.type === 'step-failed').map((e) => e.step);
  assert.deepEqual(failed, ['network'], 'the removal says why');
  // A dry run shows the removal first, then every wanted step, then stops with the refusal.
  const shown: EngineEvent[] = [];
  const preview = { dryRun: true, emit: (e: EngineEvent) => shown.push(e) };
  await assert.rejects(applyPlanned(planned, { ...ctx, emit: preview.emit }, preview), refused);
  const rows = shown.flatMap((e) => (e.type === 'step-plan' ? [[e.step, e.action.kind]] : []));
  assert.deepEqual(rows[0], ['network', 'refuse']);
  assert.deepEqual(
    rows.slice(1).map(([step]) => step),
    changed.map((r) => r.key),
  );
  assert.deepEqual(
    rows.find(([step]) => step === 'proxy-settings'),
    ['proxy-settings', 'create'],
  );
  assert.deepEqual(treeDiff(before, treeOf(root, BACKUPS)), {
    added: [],
    removed: [],
    changed: [],
  });
});

test('UNI-02 issue #38 uninstall after Docker was removed from the host for good (no socket, daemon, unit or data root): the network went with it, its record is dropped, and the uninstall finishes', async () => {
  await runRoot();
  const host = new Host(root);
  await recordNetwork(host);
  // Docker's data root left (a package removed, not purged): a Docker installed again would
  // find the network there, so that is no Docker gone for good.
  mkdirSync(join(root, 'var/lib/docker'));
  const request = { root, installationId: ID, force: true, dryRun: false };
  await assert.rejects(
    uninstall(request, noEvents),
    (e: unknown) => e instanceof OacError && e.code === 'docker_unavailable',
  );
  rmSync(join(root, 'var/lib/docker'), { recursive: true });
  const events: EngineEvent[] = [];
  await uninstall(request, (e) => events.push(e));
  const network = events.find((e) => e.type === 'step-done' && e.step === 'network');
  assert.ok(network?.type === 'step-done', JSON.stringify(events));
  assert.deepEqual(network.result, {
    outcome: 'skipped',
    detail: `network ${names.network} absent`,
  });
  assert.equal(existsSync(join(root, names.journal)), false, 'the record is gone');
});

test('issue #38 REL-01 an account tool that fails is one line with its reason, not an internal error; the run after the cause is cleared converges', async () => {
  // useradd refuses while another holds the account files' lock (a live PID in passwd.lock).
  const lock = join(root, 'etc/passwd.lock');
  writeFileSync(lock, String(process.pid));
  await assert.rejects(
    runRoot(),
    (e: unknown) =>
      e instanceof OacError &&
      e.code === 'account_tool_failed' &&
      /^useradd failed \(exit status 1\): useradd: .*lock/.test(e.message) &&
      e.hint !== undefined,
  );
  rmSync(lock);
  const again = await runRoot();
  assert.equal(again.outcomes['account:oac-node'], 'created');
  assert.equal((await runRoot()).report.changed, false, 'then unchanged');
});

test('DECL-03 a dry run lists what the real run does, and changes nothing', async () => {
  const initial = treeOf(root);
  const plan = await runRoot({}, true);
  assert.equal(plan.report.changed, true);
  assert.equal(plan.outcomes['account:oac-node'], 'create');
  assert.equal(plan.outcomes.unit, 'create');
  assert.deepEqual(treeOf(root), initial, 'a dry run changes nothing, not even the journal');
  const real = await runRoot();
  for (const [key, kind] of Object.entries(plan.outcomes))
    assert.equal(real.report.steps.find((s) => s.step === key)?.action.kind, kind, key);
});

test('DECL-02 HOST-01 UNI-03 an existing account of the right shape is adopted, and uninstall keeps it with its own groups and home', async () => {
  const host = new Host(root);
  await addSystemUser(host, {
    name: 'oac-node',
    uid: 65532,
    home: '/var/lib/oac-node',
    shell: '/usr/sbin/nologin',
  });
  execFileSync('mkdir', ['-p', join(root, 'var/lib/oac-node')]);
  const { outcomes, journal } = await runRoot();
  assert.equal(outcomes['account:oac-node'], 'adopted');
  assert.equal(outcomes['directory:home'], 'adopted');
  assert.equal(journal.resources['account:oac-node']?.ownership, 'adopted');
  assert.equal(journal.resources['group-membership:docker']?.ownership, 'owned');
  const { kept } = await removeAll();
  assert.match(
    readFileSync(join(root, 'etc/passwd'), 'utf8'),
    /^oac-node:/m,
    'the adopted account stays',
  );
  assert.ok(existsSync(join(root, 'var/lib/oac-node')), 'the adopted home stays');
  assert.doesNotMatch(
    readFileSync(join(root, 'etc/group'), 'utf8'),
    /^docker:.*oac-node/m,
    'the group we added goes',
  );
  assert.ok(
    kept.some((line) => /oac-node \(adopted: it was there before the installer\)/.test(line)),
    kept.join('\n'),
  );
});

/** An account made by hand first; the run is refused with `code` and the tree stays as it was. */
async function refusedWith(
  account: { name: string; uid: number; home: string; shell: string },
  code: string,
) {
  await addSystemUser(new Host(root), account);
  const before = treeOf(root);
  await assert.rejects(runRoot(), (e: unknown) => e instanceof OacError && e.code === code);
  assert.deepEqual(treeOf(root), before);
}

test('HOST-01 another account named oac-node is refused and nothing changes', () =>
  refusedWith(
    { name: 'oac-node', uid: 4242, home: '/home/oac-node', shell: '/bin/bash' },
    'account_foreign',
  ));

test('HOST-01 another account holding UID 65532 stops the run, changing nothing', () =>
  refusedWith(
    { name: 'someone', uid: 65532, home: '/nonexistent', shell: '/usr/sbin/nologin' },
    'uid_taken',
  ));

test('SEC-02 DECL-01 a file where the program directory belongs is refused before the first write: no account is made first', async () => {
  // Planned last-but-many (after the account, its group and its home): refused all the same
  // before anything changes, since every step is planned before the first is applied (#23).
  mkdirSync(join(root, 'usr/local/lib'), { recursive: true });
  writeFileSync(join(root, 'usr/local/lib/oac-node'), 'not a directory');
  const before = treeOf(root);
  await assert.rejects(
    runRoot(),
    (e: unknown) => e instanceof OacError && e.code === 'not_a_directory',
  );
  assert.deepEqual(treeOf(root), before);
});

test('HOST-03 SEC-02 DECL-01 a directory where the unit file belongs is refused before the first write', async () => {
  // Written over, it would fail half way through the run (after the account and the program).
  mkdirSync(join(root, names.unitPath.slice(1)), { recursive: true });
  const before = treeOf(root);
  await assert.rejects(runRoot(), (e: unknown) => e instanceof OacError && e.code === 'not_a_file');
  assert.deepEqual(treeOf(root), before);
});

test('HOST-01 SEC-02 DECL-01 a plan with two refusals lists both, in one error, and changes nothing', async () => {
  await addSystemUser(new Host(root), {
    name: 'oac-node',
    uid: 4242,
    home: '/home/oac-node',
    shell: '/bin/bash',
  });
  mkdirSync(join(root, 'usr/local/lib'), { recursive: true });
  writeFileSync(join(root, 'usr/local/lib/oac-node'), 'not a directory');
  const before = treeOf(root);
  const error = await runRoot().then(
    () => assert.fail('a refused plan was applied'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OacError, String(error));
  assert.equal(error.code, 'plan_refused');
  assert.equal(error.message, '2 problems stop this run; nothing was changed');
  assert.equal(error.details.length, 2, error.details.join('\n'));
  assert.match(error.details[0] ?? '', /^An account named oac-node already exists/);
  assert.match(
    error.details[1] ?? '',
    /^\/usr\/local\/lib\/oac-node exists and is not a directory/,
  );
  assert.deepEqual(treeOf(root), before);
  // The dry run shows the same two, each at its own step.
  const events: EngineEvent[] = [];
  const host = new Host(root);
  const journal = await Journal.open(host, ID, CORE);
  const emit = (e: EngineEvent) => events.push(e);
  await assert.rejects(
    planAndApply(rootHalf(), { host, layout: names, journal, emit }, { dryRun: true, emit }),
    (e: unknown) => e instanceof OacError && e.code === 'plan_refused',
  );
  const failed = events.flatMap((e) => (e.type === 'step-failed' ? [[e.step, e.code]] : []));
  assert.deepEqual(failed, [
    ['account:oac-node', 'account_foreign'],
    ['directory:program-root', 'not_a_directory'],
  ]);
  assert.ok(
    events.some((e) => e.type === 'step-plan' && e.step === 'service'),
    'the dry run goes on past a refusal to the last step',
  );
});

test('HOST-06 proxy settings: written 0600, replaced by other settings, removed by a run without a proxy', async () => {
  const envFile = join(root, names.envFile);
  const first = await runRoot({ http_proxy: 'http://user:pw@proxy.test:3128' });
  assert.equal(first.outcomes['proxy-settings'], 'created');
  assert.equal(statSync(envFile).mode & 0o777, 0o600);
  assert.equal(
    readFileSync(envFile, 'utf8'),
    `${KEY_LINE}\nhttp_proxy="http://user:pw@proxy.test:3128"\n`,
  );
  assert.doesNotMatch(
    readFileSync(join(root, names.unitPath), 'utf8'),
    /proxy\.test/,
    'never in the unit',
  );
  assert.doesNotMatch(
    readFileSync(join(root, names.journal), 'utf8'),
    /pw@/,
    'never in the journal',
  );
  const second = await runRoot({ http_proxy: 'http://other.test:8080' });
  assert.equal(second.outcomes['proxy-settings'], 'replaced');
  assert.equal(readFileSync(envFile, 'utf8'), `${KEY_LINE}\nhttp_proxy="http://other.test:8080"\n`);
  const third = await runRoot();
  assert.equal(third.outcomes['proxy-settings'], 'removed');
  assert.equal(existsSync(envFile), false);
  assert.equal(third.journal.resources['proxy-settings'], undefined);
});

test('HOST-05 DECL-02 intent is recorded before the change: a run that dies after useradd is continued as ours', async () => {
  const host = new Host(root);
  const journal = await Journal.open(host, ID, CORE);
  await journal.intend('account:oac-node', 'account', 'oac-node');
  await addSystemUser(host, {
    name: 'oac-node',
    uid: 65532,
    home: '/var/lib/oac-node',
    shell: '/usr/sbin/nologin',
  });
  const { outcomes, journal: after } = await runRoot();
  assert.equal(outcomes['account:oac-node'], 'unchanged');
  assert.equal(
    after.resources['account:oac-node']?.ownership,
    'owned',
    'not mistaken for an adopted account',
  );
});

test('HOST-06 SEC-03 the env file holds a proxy password: no plain SHA-256 of it in the journal or in status; a hand edit is drift all the same (issue #27.5)', async () => {
  const proxy = { https_proxy: 'http://alice:Winter2024@proxy.corp:3128' };
  await runRoot(proxy);
  const envFile = join(root, names.envFile);
  const plain = (text: string | Buffer) => sha256(text);
  // What a guess of the password gives offline: the file's digest, with or without its key line.
  const guesses = [plain(readFileSync(envFile)), plain(`https_proxy="${proxy.https_proxy}"\n`)];
  const journal = readFileSync(join(root, names.journal), 'utf8');
  for (const guess of guesses) assert.ok(!journal.includes(guess), 'no plain digest recorded');
  assert.match(journal, /"sha256": "hmac-sha256:[0-9a-f]{64}"/);
  const host = new Host(root);
  const clean = await nodeStatus(host, ID);
  assert.equal(clean?.resources.find((r) => r.key === 'proxy-settings')?.state, 'present');
  // A rerun reads the key from the file: nothing to change (the service is not restarted).
  const again = await runRoot(proxy);
  assert.equal(again.outcomes['proxy-settings'], 'unchanged');

  writeFileSync(envFile, readFileSync(envFile, 'utf8').replace('Winter2024', 'Summer2025'));
  const edited = await nodeStatus(host, ID);
  const row = edited?.resources.find((r) => r.key === 'proxy-settings');
  assert.equal(row?.state, 'drifted');
  const shown = JSON.stringify(edited);
  assert.doesNotMatch(shown, /[0-9a-f]{64}/, 'no digest of the file in status');
  assert.match(row?.detail ?? '', /its content changed/);
  for (const guess of [...guesses, plain(readFileSync(envFile))]) assert.ok(!shown.includes(guess));
  // Without its key line the file is drift too (nothing to key it by).
  writeFileSync(envFile, `https_proxy="${proxy.https_proxy}"\n`);
  const unkeyed = await nodeStatus(host, ID);
  assert.equal(unkeyed?.resources.find((r) => r.key === 'proxy-settings')?.state, 'drifted');
});

test('DECL-01 status diffs the recorded state with the same drivers: a membership through the primary group is no drift; a hand-edited unit, a removed membership and a swapped program are', async () => {
  await runRoot();
  const host = new Host(root);
  const clean = await nodeStatus(host, ID);
  assert.deepEqual(
    clean?.resources.filter((r) => r.state !== 'present'),
    [],
  );
  assert.deepEqual(clean?.problems, ['Core: not registered']);

  writeFileSync(
    join(root, names.unitPath),
    `${readFileSync(join(root, names.unitPath), 'utf8')}# edited\n`,
  );
  execFileSync('gpasswd', ['-Q', root, '-d', 'oac-node', 'docker']);
  writeFileSync(join(root, names.program), 'swapped\n', { mode: 0o755 });
  const drift = await nodeStatus(host, ID);
  const byKey = Object.fromEntries((drift?.resources ?? []).map((r) => [r.key, r]));
  assert.match(byKey.unit?.detail ?? '', /edited by hand/);
  assert.equal(byKey['group-membership:docker']?.state, 'missing');
  assert.match(byKey.program?.detail ?? '', /its SHA-256 is [0-9a-f]{64}, not the installed/);

  // The account's primary group counts as membership, as it does for install.
  const gid =
    /^docker:[^:]*:(\d+):/m.exec(readFileSync(join(root, 'etc/group'), 'utf8'))?.[1] ?? '';
  execFileSync('usermod', ['--prefix', root, '--gid', gid, 'oac-node']);
  const primary = await nodeStatus(host, ID);
  assert.equal(
    primary?.resources.find((r) => r.key === 'group-membership:docker')?.state,
    'present',
  );
});

test('DECL-02 a journal of format 1 (written before #10) is migrated: uninstall removes what it recorded as ours', async () => {
  const initial = treeOf(root, BACKUPS);
  await runRoot();
  const v2 = JSON.parse(readFileSync(join(root, names.journal), 'utf8')) as {
    resources: Record<
      string,
      { kind: string; name: string; ownership: string; props: Record<string, unknown> }
    >;
  };
  const kinds: Record<string, string> = { membership: 'group-membership' };
  const resources = Object.fromEntries(
    Object.entries(v2.resources)
      .filter(([key]) => !['service', 'directory:program', 'directory:program-root'].includes(key))
      .map(([key, r]) => [
        key,
        {
          kind: kinds[r.kind] ?? r.kind,
          name: r.name,
          ownership: r.ownership,
          detail: key === 'program' ? { sha256: r.props.sha256 } : {},
        },
      ]),
  );
  const v1 = {
    format: 1,
    installation_id: ID,
    core_url: CORE,
    created_at: 'x',
    updated_at: 'x',
    resources,
  };
  writeFileSync(join(root, names.journal), JSON.stringify(v1), { mode: 0o600 });
  const status = await nodeStatus(new Host(root), ID);
  assert.deepEqual(
    status?.resources.filter((r) => r.state !== 'present'),
    [],
  );
  await removeAll();
  assert.deepEqual(treeDiff(initial, treeOf(root, BACKUPS)), {
    added: [],
    removed: [],
    changed: [],
  });
});

test('DECL-02 an adopted membership that disappears and is re-added by a run is ours from then on', async () => {
  await addSystemUser(new Host(root), {
    name: 'oac-node',
    uid: 65532,
    home: '/var/lib/oac-node',
    shell: '/usr/sbin/nologin',
  });
  execFileSync('usermod', ['--prefix', root, '--append', '--groups', 'docker', 'oac-node']);
  const first = await runRoot();
  assert.equal(first.journal.resources['group-membership:docker']?.ownership, 'adopted');
  execFileSync('gpasswd', ['-Q', root, '-d', 'oac-node', 'docker']);
  const second = await runRoot();
  assert.equal(second.outcomes['group-membership:docker'], 'created');
  assert.equal(second.journal.resources['group-membership:docker']?.ownership, 'owned');
});

test("DECL-02 a rerun after the journal was lost records what is provably this installation's as owned, the rest as adopted", async () => {
  await runRoot();
  rmSync(join(root, names.journal));
  const { journal } = await runRoot();
  for (const key of ['program', 'directory:program', 'directory:program-root', 'unit', 'service'])
    assert.equal(journal.resources[key]?.ownership, 'owned', key);
  for (const key of ['account:oac-node', 'directory:home', 'group-membership:docker'])
    assert.equal(journal.resources[key]?.ownership, 'adopted', key);
});

test('HOST-06 an env file removed by a killed run but still recorded is forgotten by the next run', async () => {
  await runRoot({ http_proxy: 'http://proxy.test:3128' });
  rmSync(join(root, names.envFile)); // removed; the run died before forgetting it
  const { outcomes, journal } = await runRoot();
  assert.equal(outcomes['proxy-settings'], 'skipped');
  assert.equal(journal.resources['proxy-settings'], undefined);
  const status = await nodeStatus(new Host(root), ID);
  assert.deepEqual(
    status?.resources.filter((r) => r.state !== 'present'),
    [],
  );
});

// SEC-02: root never walks a tree oac-node can write. While the uninstall empties the home, a
// process of oac-node keeps swapping a directory there for a symlink to a root-owned directory
// outside; and a root-owned subtree sits inside the home. Removal runs as oac-node, so neither
// the outside directory nor the root-owned subtree can lose a file (a root walk would empty
// both), and the home is kept, not empty, with one line saying so.
test('SEC-02 uninstall empties the home as oac-node: a racing symlink swap and a root-owned subtree lose nothing', async (t) => {
  await runRoot();
  const home = join(root, 'var/lib/oac-node');
  const outside = join(root, 'srv/victim');
  execFileSync('mkdir', ['-p', outside, join(home, 'rootsub')]);
  writeFileSync(join(outside, 'keep'), 'outside\n');
  writeFileSync(join(home, 'rootsub', 'keep'), 'inside\n');
  const racer = spawn(
    'setpriv',
    ['--reuid=65532', '--regid=65532', '--clear-groups', 'sh', '-c', swapLoop(home, outside)],
    { stdio: 'ignore' },
  );
  t.after(() => racer.kill('SIGKILL'));
  await new Promise((resolve) => setTimeout(resolve, 200)); // the loop is running
  const events: EngineEvent[] = [];
  await uninstall({ root, installationId: ID, force: false, dryRun: false }, (e) => {
    events.push(e as EngineEvent);
  });
  racer.kill('SIGKILL');
  assert.equal(readFileSync(join(outside, 'keep'), 'utf8'), 'outside\n');
  assert.equal(readFileSync(join(home, 'rootsub', 'keep'), 'utf8'), 'inside\n');
  assert.ok(existsSync(home), 'the home is kept: it still holds what oac-node cannot remove');
  assert.match(
    JSON.stringify(events),
    /oac-node \(not empty: oac-node could not remove all of it\)/,
  );
});

/** As oac-node, forever: a directory with a file, then the same name as a symlink outside. */
function swapLoop(home: string, outside: string): string {
  const d = `${home}/swap`;
  return `while :; do mkdir -p ${d}/e && : >${d}/e/f; rm -rf ${d}; ln -s ${outside} ${d}; rm -f ${d}; done 2>/dev/null`;
}
