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

test('UPG-01 versions are ordered as semantic versions: numbers as numbers, a pre-release below its release', async () => {
  const { compareVersions, isVersion } = await import('../../src/version.ts');
  const ordered = [
    '0.1.0-alpha',
    '0.1.0-alpha.1',
    '0.1.0-alpha.beta',
    '0.1.0-beta.2',
    '0.1.0-beta.11',
    '0.1.0-rc.1',
    '0.1.0',
    '0.1.1',
    '0.2.0',
    '0.10.0',
    '1.0.0',
  ];
  for (const [i, a] of ordered.entries())
    for (const [j, b] of ordered.entries())
      assert.equal(compareVersions(a, b), Math.sign(i - j), `${a} against ${b}`);
  for (const bad of ['', '1', '1.2', 'v1.2.3', '1.2.3-', '1.2.3 ', '1.2.3-a b', '01.2.3x'])
    assert.equal(compareVersions(bad, '1.2.3'), undefined, JSON.stringify(bad));
  assert.ok(isVersion('0.2.0-rc.1') && !isVersion('0.2'));
});

test('OPS-06 issue #39 oac-node version: the version, the build, Node.js and the formats it reads; --version --json is the same document', async () => {
  const { versionDocument, versionText } = await import('../../support/version-document.ts');
  const { normaliseArgs } = await import('../../src/cli/main.ts');
  const d = versionDocument();
  assert.equal(d.version, VERSION);
  assert.equal(d.node, process.versions.node);
  assert.deepEqual(
    d.build,
    { kind: 'sources', commit: null, codeCache: 'none' },
    'under tsx: the sources, no code cache offered',
  );
  assert.deepEqual(Object.keys(d.formats), ['record', 'json', 'plan']);
  assert.match(
    versionText(d),
    new RegExp(`^oac-node ${VERSION.replaceAll('.', '\\.')}\\n  build    sources\\n`),
  );
  const refused = {
    ...d,
    build: { kind: 'release' as const, commit: 'abc', codeCache: 'refused' as const },
  };
  assert.match(versionText(refused), /\n {2}build {4}release, commit abc, code cache refused\n/);
  assert.deepEqual(normaliseArgs(['--version', '--json']), ['version', '--json']);
  assert.deepEqual(normaliseArgs(['-V', '--json']), ['version', '--json']);
  assert.deepEqual(normaliseArgs(['--version']), ['--version'], '--version alone: the bare line');
});
