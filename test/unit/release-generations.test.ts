// issue #6 / NODE-05: releasing old generations reads nothing when none are kept. A manually
// registered node never switches generation and has no provider.json in its state directory
// (its provider file is its --config), so the release must not go looking for one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RegisteredIdentity } from '../../src/node/identity-store.ts';
import { releaseOldGenerations } from '../../src/node/release-generations.ts';
import type { CoreClient } from '../../src/net/core-client.ts';

test('NODE-05 no kept generation: the release asks Core nothing, reads nothing, logs nothing', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'oac-release-'));
  try {
    const asked: string[] = [];
    const client = new Proxy({} as CoreClient, {
      get: (_target, name) => () => asked.push(String(name)),
    });
    const lines: string[] = [];
    const identity = { node_id: 'n', credential: 'c' } as unknown as RegisteredIdentity;
    await releaseOldGenerations(stateDir, identity, client, (line) => lines.push(line));
    assert.deepEqual(asked, [], 'Core is not asked');
    assert.deepEqual(lines, [], 'nothing is logged');
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});
