// The reference Core's `--state-file` (issue #28 item 4): a Core started from what another
// answered at GET /__fixture/state knows what that one knew, so a host booted from a frozen
// install (test/e2e/harness/installed.ts) finds its node still registered. Real processes, real
// HTTP on loopback.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  call,
  enrollBody,
  enrollNode,
  errorCode,
  startCore,
  type EnrolledNode,
  type TestCore,
} from '../helpers/core.ts';
import { repoRoot } from '../helpers/executable.ts';

const scratch = mkdtempSync(join(tmpdir(), 'oac-core-state-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const nodeApi = (core: TestCore, route: string) => `${core.core_url}/api/v1/sandbox-node/${route}`;

test("issue #28 a Core started from another one's state knows its nodes, used tokens, unused tokens and removed node IDs", async () => {
  const installationId = randomUUID();
  const first = await startCore(['--installation-id', installationId]);
  let saved!: string;
  let kept!: EnrolledNode;
  let removedId!: string;
  let unused!: string;
  try {
    kept = await enrollNode(first);
    const removed = await enrollNode(first);
    removedId = removed.node_id;
    const del = await first.coreApi('DELETE', `/core/v1/sandbox/nodes/${removedId}`);
    assert.equal(del.status, 204);
    const issued = await first.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
    unused = (issued.body as { token: string }).token;
    const state = await first.coreApi('GET', '/__fixture/state');
    assert.equal(state.status, 200);
    saved = join(scratch, 'state.json');
    writeFileSync(saved, JSON.stringify(state.body), { mode: 0o600 });
  } finally {
    await first.stop();
  }

  const second = await startCore(['--installation-id', installationId, '--state-file', saved]);
  try {
    const listed = await second.coreApi('GET', '/core/v1/sandbox/nodes');
    const ids = (listed.body as { nodes: Array<{ node_id: string }> }).nodes.map((n) => n.node_id);
    assert.deepEqual(ids, [kept.node_id], 'the registered node, not the removed one');
    const identity = await call('GET', nodeApi(second, `identity?node_id=${kept.node_id}`), {
      bearer: kept.credential,
    });
    assert.equal(identity.status, 200, JSON.stringify(identity.body));
    const again = await call('POST', nodeApi(second, 'enroll'), {
      bearer: kept.token,
      json: { ...(await enrollBody(second, unused)), node_id: randomUUID() },
    });
    assert.equal(errorCode(again), 'invalid_node_credential', 'a used token stays used');
    const reused = await call('POST', nodeApi(second, 'enroll'), {
      bearer: unused,
      json: { ...(await enrollBody(second, unused)), node_id: removedId },
    });
    assert.equal(reused.status, 409, 'a removed node ID never registers again');
    const fresh = await call('POST', nodeApi(second, 'enroll'), {
      bearer: unused,
      json: await enrollBody(second, unused),
    });
    assert.equal(fresh.status, 201, 'an unused token still enrolls');
  } finally {
    await second.stop();
  }
  // Another installation's Core (or the same one started without its ID) refuses the file.
  const other = startFromFile(saved, randomUUID());
  assert.equal(other.status, 1, other.stderr);
  assert.match(firstLine(other.stderr), /^reference core: the state file is of installation /);
  assert.match(firstLine(other.stderr), /--installation-id/);
});

function startFromFile(file: string, installationId: string) {
  const argv = ['--installation-id', installationId, '--state-file', file];
  return spawnSync(process.execPath, ['--import', 'tsx', 'fixtures/core/main.ts', ...argv], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

const firstLine = (text: string) => text.split('\n')[0] ?? '';

test('issue #28 a state file of another shape stops the Core at start in one line naming it', () => {
  const saved = join(scratch, 'other.json');
  writeFileSync(saved, JSON.stringify({ installation_id: randomUUID(), nodes: 'all of them' }));
  const shape = startFromFile(saved, randomUUID());
  assert.equal(shape.status, 2, shape.stderr);
  assert.match(firstLine(shape.stderr), /^reference core: --state-file \S+other\.json: /);
  assert.equal(shape.stdout, '', 'never started');
});
