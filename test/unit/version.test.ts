import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { VERSION } from '../../src/version.ts';

test('issue #2: --version reports the package version (the executable has no package.json)', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  assert.equal(VERSION, pkg.version);
});

test("BOOT-07 the guide's recovery form '<installer> --uninstall --installation-id ID' reads as the uninstall command", async () => {
  const { normaliseArgs } = await import('../../src/cli/main.ts');
  assert.deepEqual(normaliseArgs(['--uninstall', '--installation-id', 'x', '--force']), [
    'uninstall',
    '--installation-id',
    'x',
    '--force',
  ]);
  // The older `install --uninstall` form too; its --core-url has no part in an uninstall.
  assert.deepEqual(
    normaliseArgs([
      'install',
      '--core-url',
      'https://c.example',
      '--uninstall',
      '--installation-id',
      'x',
    ]),
    ['uninstall', '--installation-id', 'x'],
  );
  assert.deepEqual(normaliseArgs(['status', '--uninstall']), ['status', '--uninstall']);
  assert.deepEqual(normaliseArgs(['--help']), ['--help']);
});
