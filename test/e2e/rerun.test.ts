// RERUN-02 end to end: a rerun changes nothing and says why when the node belongs to another
// Core address. (A rerun while the node prepares a configuration change is in rollout.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bootHost, type E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { startCoreInHost, type CoreInHost } from './helpers/core-in-host.ts';
import { installByLine } from './helpers/install-line.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
let host: E2eHost;
let core: CoreInHost;
let command: string;

before(async () => {
  host = await bootHost();
  core = await startCoreInHost(host, ['--release-dir', await release.dir()]);
  command = (await installByLine(host, core)).command;
});
after(async () => {
  await core?.stop();
  await host?.stop();
});

async function refusedRerun(line: string, expected: RegExp): Promise<void> {
  const before = await host.snapshot();
  const run = await host.exec(['sh'], { stdin: `${line}\n`, timeoutMs: 300_000 });
  assert.notEqual(run.status, 0, run.stdout);
  assert.match(run.stderr, expected);
  assert.deepEqual(diffSnapshots(before, await host.snapshot()), [], 'nothing changed');
}

test('RERUN-02 the same installation at another Core address: "This host\'s node uses …, but this command uses …", nothing changed', async () => {
  // localhost and 127.0.0.1 reach the same Core, but they are two addresses.
  const port = new URL(core.coreUrl).port;
  const other = command.replaceAll(`http://127.0.0.1:${port}`, `http://localhost:${port}`);
  assert.notEqual(other, command);
  await refusedRerun(
    other,
    new RegExp(
      `^oac-node: This host's node uses http://127\\.0\\.0\\.1:${port}, but this command uses http://localhost:${port}$`,
      'm',
    ),
  );
});
