// UNI-06 (issue #39 item 9): the uninstall names the pasted line's kept installers only where
// they are, by their real path (root's home, and the home of the account that ran sudo), and says
// nothing of them on a host that has none.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { uninstall } from '../../uninstaller/uninstall.ts';
import { ID, installRootHalf, programFor } from '../helpers/root-half.ts';
import { makeScratchRoot, removeScratchRoot } from '../helpers/scratch-root.ts';

async function keptAfterUninstall(withInstallers: boolean): Promise<string[]> {
  const root = makeScratchRoot();
  try {
    await installRootHalf(root, programFor(root));
    if (withInstallers) mkdirSync(join(root, 'root/.oac/node-bootstrap'), { recursive: true });
    const request = { root, installationId: ID, force: false, dryRun: false };
    return (await uninstall(request, () => undefined)).kept;
  } finally {
    removeScratchRoot(root);
  }
}

test('UNI-06 the kept installers are named where they are, with the command that removes them', async () => {
  const kept = await keptAfterUninstall(true);
  assert.ok(
    kept.includes(
      'the downloaded installers in /root/.oac/node-bootstrap: remove them with sudo rm -rf /root/.oac/node-bootstrap',
    ),
    kept.join('\n'),
  );
});

test('UNI-06 a host with no kept installers is told nothing of them', async () => {
  const kept = await keptAfterUninstall(false);
  assert.ok(!kept.some((line) => line.includes('node-bootstrap')), kept.join('\n'));
});
