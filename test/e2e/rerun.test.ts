// RERUN-02 end to end: a rerun changes nothing and says why when the node belongs to another
// Core address, or when Core's sandbox configuration changed since the node registered (not even
// the new release's image is downloaded).
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
  core = await startCoreInHost(host, ['--release-dir', release.dir]);
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

test('RERUN-02 after a configuration change in Core, a rerun says so and changes nothing, not even a download', async () => {
  const deployment = (await core.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
    specification: Record<string, unknown>;
    generation: number;
  };
  const changed = { ...deployment.specification, memory_mib: 300 };
  assert.equal(
    (await core.coreApi('PUT', '/core/v1/sandbox/specification', { specification: changed }))
      .status,
    200,
  );
  await refusedRerun(
    command,
    new RegExp(
      `^oac-node: Core's sandbox configuration changed \\(generation ${deployment.generation + 1}\\); this node serves generation ${deployment.generation} and prepares the change itself, so this command changes nothing$`,
      'm',
    ),
  );
});
