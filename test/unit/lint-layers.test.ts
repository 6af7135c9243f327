// Issue #23: the layers are held by lint (eslint.config.js, LAYERS): each folder imports only the
// folders below it, so an upward import, and with it any circle between folders, fails
// `npm run lint`. Linted as text under a path, with the project's own configuration, so the test
// shows the rules as `npm run lint` applies them, and that they bite.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The no-restricted-imports messages for `text` linted as the file `filePath`. */
async function refused(text: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${root}${filePath}` });
  assert.ok(result !== undefined, filePath);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const importing = (spec: string) => `import * as above from '${spec}';\n\nexport { above };\n`;

test('issue #23 lint refuses an import from the reconcile core into the domain', async () => {
  for (const spec of [
    '../installation/plan.ts',
    '../resources/resources.ts',
    '../node/identity-store.ts',
    '../agent/run.ts',
    '../../installer/install.ts',
    // Nor below it: the core is generic (no host, no journal, no installation's names).
    '../host/host.ts',
    '../net/core-client.ts',
    '../../records/journal.ts',
    '../layout.ts',
  ]) {
    const found = await refused(importing(spec), 'src/core/example.ts');
    assert.equal(found.length, 1, `src/core → ${spec}: ${found.join('; ')}`);
    assert.match(found[0] ?? '', /The reconcile core (imports no folder|knows no installation)/);
  }
});

test('issue #23 lint refuses an import from the node library into the installation or the installer', async () => {
  for (const spec of [
    '../installation/desired.ts',
    '../agent/rollout.ts',
    '../../installer/install.ts',
  ]) {
    const found = await refused(importing(spec), 'src/node/example.ts');
    assert.equal(found.length, 1, `src/node → ${spec}: ${found.join('; ')}`);
  }
  // A circle between folders needs an upward import: the installation may import the node
  // library, so the node library importing the installation back is the refused half.
  assert.deepEqual(
    await refused(importing('../node/identity-store.ts'), 'src/installation/x.ts'),
    [],
  );
});

test('issue #23 lint keeps each folder below those above it, and the leaf modules below all', async () => {
  const cases: Array<[string, string, boolean]> = [
    ['src/resources/x.ts', '../node/register.ts', true],
    ['src/resources/x.ts', '../core/plan.ts', false],
    ['src/installation/x.ts', '../agent/run.ts', true],
    ['src/agent/x.ts', '../installation/reconcile.ts', false],
    ['src/host/x.ts', '../core/step.ts', true],
    ['records/x.ts', '../src/installation/plan.ts', true],
    ['records/x.ts', '../src/host/host.ts', false],
    ['uninstaller/x.ts', '../installer/install.ts', true],
    ['installer/x.ts', '../uninstaller/uninstall.ts', true],
    ['src/layout.ts', './host/host.ts', true],
    ['src/cli/x.ts', '../../installer/install.ts', false],
  ];
  for (const [file, spec, refusedThere] of cases) {
    const found = await refused(importing(spec), file);
    assert.equal(found.length > 0, refusedThere, `${file} → ${spec}: ${found.join('; ')}`);
  }
});
