// Reruns end to end on an installed host: a lost node state, a damaged provider file. A rerun
// at another Core address (RERUN-02) changes nothing and says why before it asks anything, from
// the records alone: it runs at the host tier (test/host/refusals.test.ts, issue #28 item 3); a
// rerun while the node prepares a configuration change is in rollout.test.ts.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { listNodes } from './harness/core-nodes.ts';
import { fromLine, issueToken } from './harness/enroll.ts';
import { installedHostWithCore } from './harness/installed.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
// A host booted with a node the line installed (harness/installed.ts).
const pair = installedHostWithCore(release);
let command: string;

before(async () => {
  command = (await pair.boot()).line.command;
});

async function refusedRerun(line: string, expected: RegExp): Promise<void> {
  const { host } = pair;
  const before = await host.snapshot();
  const run = await host.exec(['sh'], { stdin: `${line}\n`, timeoutMs: 300_000 });
  assert.notEqual(run.status, 0, run.stdout);
  assert.match(run.stderr, expected);
  assert.deepEqual(diffSnapshots(before, await host.snapshot()), [], 'nothing changed');
}

// The guide (l.130): "A lost node state directory is a recovery incident: restore it from its
// backup … rather than registering the host again over existing resources." A new command
// must not register a second node silently while the records say this host registered one.
test('RERUN-01 a lost node state with the records left: no new registration, one line naming the recovery; the restored state works again', async () => {
  const { host, core } = pair;
  const { installationId, uninstall } = fromLine(command);
  const nodes = () => listNodes(core);
  const registered = (await nodes()).length;
  const state = `/var/lib/oac-node/.oac/nodes/${installationId}`;
  await host.shOk(`systemctl stop oac-node-${installationId}.service && mv ${state} /root/lost`);
  try {
    const fresh = (await issueToken(core)).command;
    await refusedRerun(
      fresh,
      /^oac-node: This host registered node [0-9a-f-]{36}, but its node state \/var\/lib\/oac-node\/\.oac\/nodes\/\S+ is gone$\n {2}hint: A lost node state is a recovery incident/m,
    );
    assert.equal((await nodes()).length, registered, 'no second node was registered');
    // Uninstall cannot ask Core without the node's credential: it says so, and changes nothing.
    const before = await host.snapshot();
    const refused = await host.exec(uninstall, { stdin: '' });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /^oac-node: This host registered node /m);
    assert.deepEqual(diffSnapshots(before, await host.snapshot()), []);
  } finally {
    await host.shOk(`mv /root/lost ${state}`);
  }
  // Restored from its backup: the same line finds its node again and the service comes back.
  const rerun = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 300_000 });
  assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
  assert.equal((await nodes()).length, registered);
});

// NODE-04 and the guide's readiness table: artifacts_unavailable says "Rerun the node's command".
// A damaged provider file is not one with other settings: the rerun writes back the approved one.
test('NODE-04 a damaged provider file: the node reports artifacts_unavailable, and rerunning the command restores it', async () => {
  const { host } = pair;
  const { installationId } = fromLine(command);
  const file = `/var/lib/oac-node/.oac/nodes/${installationId}/provider.json`;
  const approved = await host.shOk(`cat ${file}`);
  await host.shOk(`runuser -u oac-node -- sh -c 'echo "{ damaged" > ${file}'`);
  const rerun = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 300_000 });
  assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
  assert.match(rerun.stdout, /^ {2}replaced +\S+\/provider\.json$/m);
  assert.equal(await host.shOk(`cat ${file}`), approved, 'the approved file is back');
  assert.match(rerun.stdout, /is connected and ready/);
});
