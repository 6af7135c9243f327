// Issue #15 items 2 and 3 (FLEET-01, FLEET-02): the Ansible role deploy/ansible/roles/oac_node,
// run by Debian's ansible-playbook against three throwaway hosts at once, over ssh to each
// host's own address (sshd inside, a key made for the test). Each host has its own reference
// Core on its loopback, as each would be given its own token by one Core. The first run changes
// all three (and, with --diff, shows each host its installer's changed steps as Ansible's own
// diff: issue #39), a rerun and check mode change nothing, absent returns each host to its
// snapshot, and a host with a bad token fails alone. No token is ever in a process's arguments or
// environment, in a file of any host, or in Ansible's output or log.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { listNodes, removeNodeInCore } from './harness/core-nodes.ts';
import { bootWithCore, type BootedPair, type CoreInHost } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import { repoRoot } from './harness/rootfs.ts';
import { beyondKeptImage, diffSnapshots, type HostSnapshot } from './harness/snapshot.ts';
import {
  controller,
  type Controller,
  type FleetHost,
  type PlaybookRun,
} from './helpers/ansible.ts';
import { newerExecutable, testRelease } from './helpers/release.ts';
import { UPGRADE_PLAYBOOK } from './helpers/ansible.ts';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { filesHolding, watchProcesses } from './helpers/secret-watch.ts';

const release = testRelease();
const newer = newerExecutable();
const brokenRelease = newerExecutable('exit-at-start');

const sha256Of = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

interface Member extends BootedPair {
  name: string;
  pristine: HostSnapshot;
  /** After absent: the pristine host and the kept Runtime image. */
  left?: HostSnapshot;
  installationId: string;
  sha: string;
}

let members: Member[] = [];
let ansible: Controller;
const tokens: string[] = [];
const outputs: string[] = [];
const processHits: string[] = [];

async function boot(name: string, dir: string): Promise<Member> {
  const pair = await bootWithCore(['--release-dir', dir]);
  await ansible.admit(pair.host);
  const pristine = await pair.host.snapshot();
  return { name, ...pair, pristine, installationId: '', sha: '' };
}

/** A fresh enrollment token for each member (a bad one where asked), into the inventory. */
async function enroll(bad: Set<string> = new Set()): Promise<void> {
  const fleet: FleetHost[] = [];
  for (const m of members) {
    const issued = await issueToken(m.core);
    m.installationId = issued.installationId;
    m.sha = issued.sha;
    const token = bad.has(m.name)
      ? `Bad-${issued.token.slice(4).split('').reverse().join('')}`
      : issued.token;
    tokens.push(issued.token, token);
    fleet.push({
      name: m.name,
      host: m.host,
      token,
      vars: {
        oac_node_core_url: m.core.coreUrl,
        oac_node_installation_id: m.installationId,
        // m3 leaves without asking Core (force); m1 and m2 after Core removed them.
        ...(m.name === 'm3' ? { oac_node_force: true } : {}),
      },
    });
  }
  await ansible.inventory(fleet, {
    oac_node_installer_src: join(repoRoot, 'dist/oac-node'),
    oac_node_installer_sha256: members[0]?.sha ?? '',
  });
}

/** Where a host keeps files: upper/ (its disk) and its tmpfs mounts. */
function hostFileDirs(m: Member): string[] {
  return [
    join(m.host.dir, 'upper'),
    ...['tmp', 'run', 'dev/shm'].map((d) => `/proc/${m.host.leaderPid}/root/${d}`),
  ];
}

/** A playbook run, watched for tokens. The watcher must also see two canaries planted while
 *  it runs, in a host process's environment and in a host file, or it proves nothing. */
async function play(args: string[] = [], file?: string): Promise<PlaybookRun> {
  const canary = `canary-${Math.random().toString(36).slice(2)}`;
  const secrets = new Map(tokens.map((t, i) => [`token ${i}`, t]));
  secrets.set('canary', canary);
  // While it runs: where Ansible puts its files on a host (~/.ansible/tmp, or /tmp); all of a
  // host's files are searched once at the end (the last test).
  const watch = watchProcesses(
    secrets,
    members.flatMap((m) => [
      join(m.host.dir, 'upper/root/.ansible'),
      `/proc/${m.host.leaderPid}/root/tmp`,
    ]),
  );
  const [m1] = members as [Member];
  const planted = m1.host.sh(
    'mkdir -p /root/.ansible/tmp && echo "$CANARY" > /root/.ansible/tmp/canary && sleep 1; rm -f /root/.ansible/tmp/canary',
    { env: { CANARY: canary } },
  );
  const run = await ansible.playbook(args, file);
  await planted;
  const hits = watch.stop();
  assert.ok(
    hits.some((h) => h.startsWith('canary: /proc/')) && hits.some((h) => h.includes('/upper/')),
    `the watcher saw the canaries: ${hits.join(', ')}`,
  );
  processHits.push(...hits.filter((h) => !h.startsWith('canary')));
  outputs.push(run.output);
  return run;
}

/** A task's section of the output: from its header to the next. */
function section(output: string, task: string): string {
  const start = output.indexOf(`TASK [oac_node : ${task}]`);
  assert.ok(start >= 0, `the task ${task} is in the output`);
  const end = output.indexOf('TASK [', start + 1);
  return output.slice(start, end < 0 ? undefined : end);
}

/** The hosts a task ran on (not skipped). */
function ranOn(output: string, task: string): string[] {
  return [...section(output, task).matchAll(/^(?:ok|changed): \[(\w+)\]/gm)]
    .map((m) => m[1] as string)
    .sort();
}

/** Where check mode leaves each host's plan (oac_node_plan_out). */
const PLAN = '/root/node.plan';

/** The installer the role keeps on a host, NODE_OPTIONS cleared as the role's start does. */
function installer(m: Member): string[] {
  return ['env', '-u', 'NODE_OPTIONS', `/root/.oac/node-bootstrap/${m.sha}`];
}

function changedPerHost(run: PlaybookRun): Record<string, number> {
  return Object.fromEntries(members.map((m) => [m.name, run.recap.get(m.name)?.changed ?? -1]));
}

function failedPerHost(run: PlaybookRun): Record<string, number> {
  return Object.fromEntries(members.map((m) => [m.name, run.recap.get(m.name)?.failed ?? -1]));
}

async function readyNodes(core: CoreInHost): Promise<Array<{ node_id: string; ready: boolean }>> {
  const listed = await listNodes(core);
  return listed.map((n) => ({ node_id: n.node_id, ready: n.connected && n.provider_ready }));
}

function onlyKeptImages(before: HostSnapshot, now: HostSnapshot): string[] {
  return beyondKeptImage(diffSnapshots(before, now));
}

before(async () => {
  // The upgrade test's releases build while the hosts boot (awaited there; a failure shows there).
  for (const r of [newer, brokenRelease]) r.build().catch(() => undefined);
  const dir = await release.dir();
  ansible = await controller();
  // Booted at once, as a fleet is: the play then runs against all three in parallel.
  members = await Promise.all(['m1', 'm2', 'm3'].map((name) => boot(name, dir)));
});

after(async () => {
  await Promise.all(members.map((m) => m.stop()));
  await ansible?.remove();
});

test('FLEET-01 the first run installs a ready node on all three hosts at once, and --diff shows each host what changed', async () => {
  await enroll();
  const run = await play(['--diff']);
  assert.equal(run.status, 0, run.output);
  for (const [name, changed] of Object.entries(changedPerHost(run)))
    assert.ok(changed > 0, `${name} changed: ${run.output}`);
  // Issue #39: --diff is Ansible's own diff (the role's action oac_node_diff), one per host, of
  // the real installer's changed steps, one `+` line each, in its words (created, updated ...).
  assert.deepEqual(ranOn(run.output, "Node's changes (--diff)"), ['m1', 'm2', 'm3']);
  const diffs = section(run.output, "Node's changes (--diff)");
  assert.equal(
    diffs.match(/^--- before\n\+\+\+ after\n@@ -0,0 \+1(,\d+)? @@$/gm)?.length,
    3,
    diffs,
  );
  assert.match(diffs, /^\+(created|updated|replaced|adopted|removed) \S/m, diffs);
  for (const m of members)
    assert.deepEqual(
      (await readyNodes(m.core)).map((n) => n.ready),
      [true],
      `${m.name}: one node, connected and ready`,
    );
});

test('FLEET-01 FLEET-02 DECL-05 a rerun and check mode report changed=0 on every host; check mode leaves each host its plan, which applies exactly once', async () => {
  // Verbose, as an operator debugging a play runs it: still no token (the last test checks).
  const rerun = await play(['-vvv']);
  assert.equal(rerun.status, 0, rerun.output);
  assert.deepEqual(changedPerHost(rerun), { m1: 0, m2: 0, m3: 0 }, rerun.output);
  const check = await play(['--check', '-e', `oac_node_plan_out=${PLAN}`]);
  assert.equal(check.status, 0, check.output);
  assert.deepEqual(changedPerHost(check), { m1: 0, m2: 0, m3: 0 }, check.output);
  // Check mode asked the installer's dry run, not nothing: it ran on every host.
  assert.deepEqual(ranOn(check.output, 'Node checked (dry run)'), ['m1', 'm2', 'm3']);
  // Each host's plan, for review (the last test searches every host file for the tokens).
  for (const m of members) {
    assert.equal((await m.host.shOk(`stat -c '%a %U' ${PLAN}`)).trim(), '600 root', m.name);
    const shown = await m.host.exec([...installer(m), 'show-plan', PLAN]);
    assert.equal(
      shown.status,
      0,
      `${m.name}: nothing would change\n${shown.stdout}${shown.stderr}`,
    );
  }
  const [m1] = members as [Member];
  const applied = await m1.host.exec([...installer(m1), 'apply', PLAN], { stdin: '' });
  assert.equal(applied.status, 0, `${applied.stdout}${applied.stderr}`);
  const again = await m1.host.exec([...installer(m1), 'apply', PLAN], { stdin: '' });
  assert.equal(again.status, 3, `a plan applied once is stale: ${again.stdout}${again.stderr}`);
  // The operator's file, not the role's: read for tokens here, then gone before absent's
  // snapshot comparison.
  for (const m of members) {
    const text = await m.host.shOk(`cat ${PLAN} && rm ${PLAN}`);
    assert.deepEqual(
      tokens.filter((t) => text.includes(t)),
      [],
      `${m.name}: no token in the plan file`,
    );
  }
});

test('FLEET-01 UPG-01 UPG-02 upgrade.yml upgrades one host at a time: each host changed and ready on the new release; again changed=0; a broken release rolls the first host back and fails it, and no other host is touched', async () => {
  const [next, broken] = await Promise.all([newer.build(), brokenRelease.build()]);
  const withInstaller = (dir: string) => [
    '-e',
    `oac_node_installer_src=${join(dir, 'oac-node')}`,
    '-e',
    `oac_node_installer_sha256=${sha256Of(join(dir, 'oac-node'))}`,
  ];
  const software = async () =>
    Object.fromEntries(
      await Promise.all(
        members.map(async (m) => [m.name, (await listNodes(m.core)).map((n) => n.software)]),
      ),
    );
  const upgrade = await play(withInstaller(next.dir), UPGRADE_PLAYBOOK);
  assert.equal(upgrade.status, 0, upgrade.output);
  // Two changes on each host: the new installer copied, and the node upgraded by it.
  assert.deepEqual(changedPerHost(upgrade), { m1: 2, m2: 2, m3: 2 }, upgrade.output);
  // One host at a time: each host's installer ran in a play batch of its own.
  assert.equal(upgrade.output.match(/^PLAY \[/gm)?.length, 3, upgrade.output);
  const onNext = [`oac-node/${next.version}`];
  assert.deepEqual(await software(), { m1: onNext, m2: onNext, m3: onNext });
  const again = await play(withInstaller(next.dir), UPGRADE_PLAYBOOK);
  assert.equal(again.status, 0, again.output);
  assert.deepEqual(changedPerHost(again), { m1: 0, m2: 0, m3: 0 }, again.output);
  const before = await Promise.all(members.map((m) => m.host.snapshot()));
  const failed = await play(withInstaller(broken.dir), UPGRADE_PLAYBOOK);
  assert.notEqual(failed.status, 0, failed.output);
  assert.equal(failedPerHost(failed).m1, 1, failed.output);
  assert.match(failed.output, /rolled back: the node runs oac-node \S+ again, connected and ready/);
  // The rollout stopped at m1: the others never ran a task of it.
  assert.deepEqual(
    [failed.recap.get('m2'), failed.recap.get('m3')],
    [undefined, undefined],
    failed.output,
  );
  assert.deepEqual(await software(), { m1: onNext, m2: onNext, m3: onNext });
  for (const [i, m] of members.entries()) {
    const differences = diffSnapshots(before[i] as HostSnapshot, await m.host.snapshot());
    // m1's record learned of the attempt, and its service restarted (the lock names the new run).
    const expected = differences.filter(
      (d) =>
        !(
          m.name === 'm1' &&
          (/^\/etc\/oac-node\/[^:]+\.json: /.test(d) || /\/\.lock\.owner: /.test(d))
        ),
    );
    assert.deepEqual(expected, [], `${m.name} is as before the broken release`);
  }
});

test('FLEET-01 state absent returns every host to its snapshot; a rerun of absent changes nothing', async () => {
  for (const m of members.filter((x) => x.name !== 'm3')) {
    const [node] = await readyNodes(m.core);
    await removeNodeInCore(m.core, `${node?.node_id}`);
  }
  const absent = await play(['-e', 'oac_node_state=absent']);
  assert.equal(absent.status, 0, absent.output);
  for (const [name, changed] of Object.entries(changedPerHost(absent)))
    assert.ok(changed > 0, `${name} changed: ${absent.output}`);
  for (const m of members) {
    m.left = await m.host.snapshot();
    assert.deepEqual(onlyKeptImages(m.pristine, m.left), [], m.name);
    await m.host.shOk('test ! -e /root/.oac/node-bootstrap');
  }
  const again = await play(['-e', 'oac_node_state=absent']);
  assert.equal(again.status, 0, again.output);
  assert.deepEqual(changedPerHost(again), { m1: 0, m2: 0, m3: 0 }, again.output);
});

test('FLEET-01 a host with a bad token fails alone, unchanged, while the others finish', async () => {
  await enroll(new Set(['m2']));
  const run = await play();
  assert.notEqual(run.status, 0, 'the play reports the failed host');
  assert.deepEqual(failedPerHost(run), { m1: 0, m2: 1, m3: 0 }, run.output);
  assert.ok((run.recap.get('m1')?.changed ?? 0) > 0 && (run.recap.get('m3')?.changed ?? 0) > 0);
  // The installer's own line reaches the operator, though the task that held the token is
  // no_log.
  assert.match(run.output, /fatal: \[m2\]: FAILED! => .*"msg": "oac-node: .*\[exit 1\]"/);
  // (m3's Core still lists its node from before: it left with --force, without asking Core.)
  for (const m of members.filter((x) => x.name !== 'm2'))
    assert.equal((await readyNodes(m.core)).filter((n) => n.ready).length, 1, m.name);
  const m2 = members.find((m) => m.name === 'm2') as Member;
  const differences = diffSnapshots(m2.left ?? m2.pristine, await m2.host.snapshot());
  assert.deepEqual(differences, [], 'the host with the bad token is unchanged');
});

test('FLEET-01 SEC-03 no token in any process, host file, or Ansible output and log', async () => {
  assert.ok(outputs.length >= 5 && tokens.length >= 6, 'the runs above happened');
  assert.deepEqual(processHits, [], 'no token in any argv or environment');
  for (const output of outputs)
    for (const token of tokens) assert.ok(!output.includes(token), 'no token in the output');
  const log = await readFile(join(ansible.dir, 'ansible.log'), 'utf8');
  assert.ok(log.includes('PLAY RECAP'), 'the log was written');
  assert.ok(!tokens.some((t) => log.includes(t)), 'no token in the log');
  for (const m of members)
    for (const dir of hostFileDirs(m))
      assert.deepEqual(filesHolding(dir, tokens), [], `${m.name}'s files under ${dir}`);
});
