// Issue #11 item 8 (SEC-05, HOST-05): five installers started at once on one host. The same
// pasted line five times (five terminals, one operator): one installs; each of the others
// waits for the installer lock and then either finds nothing to do or stops with
// installer_busy in one line. Then five reruns at once on the installed node, with --json so
// each says whether it changed anything. Throughout, a sampler in the host copies the journal
// every time it changes: every copy parses (writes are whole-file renames, never torn).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { listNodes } from './harness/core-nodes.ts';
import { hostWithCore } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import { type ExecResult } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';

const release = testRelease();
const RUNS = 5;
// A line that arrives while another holds the bootstrap folder (it checks or unpacks the kept
// installer) says first that it waits for it (the line's own flock, BOOT-03): under load, often.
// The line that downloaded the installer says so, and may still lose the installer's lock to a
// line that found the kept installer the moment the bootstrap folder was free.
const BUSY =
  /^(oac-node: waiting for another oac-node command that is using \/root\/\.oac\/node-bootstrap\n)?(oac-node: downloading the installer\n)?oac-node: Another oac-node installer or uninstaller is running on this host( \(PID \d+\))?\n {2}hint: Wait for it to finish, then run the command again\.\n$/;
const pair = hostWithCore(async () => ['--release-dir', await release.dir()]);

before(() => pair.boot());

/** Copies the installation's journal into /tmp/journal-samples each time its content changes,
 *  until /tmp/journal-samples.stop exists; resolves to the copies' contents. */
async function sampleJournal(installationId: string, during: () => Promise<void>) {
  const { host } = pair;
  const journal = layout(parseInstallationId(installationId)).journal;
  await host.shOk('rm -rf /tmp/journal-samples* && mkdir /tmp/journal-samples');
  const sampler = host.sh(
    `i=0; until [ -e /tmp/journal-samples.stop ]; do ` +
      `if [ -e ${journal} ] && ! cmp -s ${journal} /tmp/journal-samples/last; then ` +
      `i=$((i+1)); cp ${journal} /tmp/journal-samples/$i; cp /tmp/journal-samples/$i /tmp/journal-samples/last; fi; ` +
      `sleep 0.02; done`,
    { timeoutMs: 900_000 },
  );
  try {
    await during();
  } finally {
    await host.shOk('touch /tmp/journal-samples.stop');
    await sampler;
  }
  const names = (await host.shOk('ls /tmp/journal-samples'))
    .split('\n')
    .filter((n) => /^\d+$/.test(n));
  const samples: string[] = [];
  for (const n of names) samples.push(await host.shOk(`cat /tmp/journal-samples/${n}`));
  return samples;
}

function assertWholeJournals(samples: string[], installationId: string): void {
  assert.ok(samples.length > 0, 'the sampler saw the journal');
  for (const [i, text] of samples.entries()) {
    const parsed = JSON.parse(text) as { installation_id?: string };
    assert.equal(parsed.installation_id, installationId, `sample ${i + 1} is a whole journal`);
  }
}

/** Every run either succeeded or stopped with installer_busy alone; returns the counts. */
function classify(runs: ExecResult[]): { ok: ExecResult[]; busy: ExecResult[] } {
  const ok = runs.filter((r) => r.status === 0);
  const busy = runs.filter((r) => r.status !== 0);
  for (const r of busy) {
    assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, BUSY, "one line and its hint, nothing else (but the line's wait)");
  }
  return { ok, busy };
}

test('SEC-05 HOST-05 five pasted lines at once: one node, the others wait then find it done or stop with installer_busy; five --json reruns at once change nothing; the journal is never torn', async () => {
  const { host, core } = pair;
  const { command, installationId, uninstall } = await issueToken(core);

  let lines: ExecResult[] = [];
  const first = await sampleJournal(installationId, async () => {
    lines = await Promise.all(
      Array.from({ length: RUNS }, () =>
        host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 }),
      ),
    );
  });
  const round1 = classify(lines);
  assert.ok(round1.ok.length >= 1, 'one of them installed the node');
  assert.equal(
    round1.ok.filter((r) => /^ {2}created +user oac-node\b/m.test(r.stdout)).length,
    1,
    `exactly one created the account; any other success found it done:\n${round1.ok.map((r) => r.stdout).join('\n---\n')}`,
  );
  for (const r of round1.ok.filter((r) => !/^ {2}created +user oac-node\b/m.test(r.stdout)))
    assert.match(r.stdout, /^ {2}unchanged +user oac-node$/m, 'a waiter found the account made');
  assert.equal((await listNodes(core)).length, 1, 'Core lists one node');
  assertWholeJournals(first, installationId);
  console.log(
    `pasted lines: ${round1.ok.length} succeeded, ${round1.busy.length} busy; ${first.length} journal versions sampled, all whole`,
  );

  const installed = await host.snapshot();
  const installer = uninstall.slice(0, 4); // env -u NODE_OPTIONS <kept installer>
  const args = ['install', '--core-url', core.coreUrl, '--installation-id', installationId];
  let reruns: ExecResult[] = [];
  const second = await sampleJournal(installationId, async () => {
    reruns = await Promise.all(
      Array.from({ length: RUNS }, () =>
        host.exec([...installer, ...args, '--json'], { stdin: '', timeoutMs: 300_000 }),
      ),
    );
  });
  const round2 = classify(reruns);
  assert.ok(round2.ok.length >= 1, 'at least one rerun took the lock');
  for (const r of round2.ok) {
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as { changed: boolean };
    assert.equal(summary.changed, false, 'a rerun changes nothing');
  }
  assert.deepEqual(diffSnapshots(installed, await host.snapshot()), [], 'the host is as installed');
  assert.equal((await listNodes(core)).length, 1);
  assertWholeJournals(second.length > 0 ? second : first, installationId);
  console.log(`--json reruns: ${round2.ok.length} unchanged, ${round2.busy.length} busy`);
});
