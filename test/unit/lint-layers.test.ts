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
    // Issue #38: nor the message table (its refusals carry codes; the domain renders them).
    '../messages.ts',
  ]) {
    const found = await refused(importing(spec), 'src/core/example.ts');
    assert.equal(found.length, 1, `src/core → ${spec}: ${found.join('; ')}`);
    assert.match(
      found[0] ?? '',
      /The reconcile core (imports no folder|knows no installation|renders no message)/,
    );
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
    ['src/agent/x.ts', '../installation/reconcile.ts', true], // issue #38 (was allowed)
    ['src/host/x.ts', '../core/step.ts', true],
    ['records/x.ts', '../src/installation/root-plan.ts', true],
    ['records/x.ts', '../src/host/host.ts', false],
    ['uninstaller/x.ts', '../installer/install.ts', true],
    ['installer/x.ts', '../uninstaller/uninstall.ts', true],
    ['src/layout.ts', './host/host.ts', true],
    ['src/cli/x.ts', '../../installer/install.ts', false],
    // Issue #38: the node program takes nothing from the installation (the node library's).
    ['src/agent/x.ts', '../installation/desired.ts', true],
    ['src/agent/x.ts', '../node/node-desired.ts', false],
  ];
  for (const [file, spec, refusedThere] of cases) {
    const found = await refused(importing(spec), file);
    assert.equal(found.length > 0, refusedThere, `${file} → ${spec}: ${found.join('; ')}`);
  }
});

test('issue #38 lint refuses a dynamic import and a type import across the layers as it refuses a static one', async () => {
  const layerMessages = async (text: string, filePath: string) => {
    const [result] = await eslint.lintText(text, { filePath: `${root}${filePath}` });
    assert.ok(result !== undefined, filePath);
    return result.messages.filter((m) => m.ruleId === 'oac/layer-imports').map((m) => m.message);
  };
  const dynamic = (spec: string) => `export const load = () => import('${spec}');\n`;
  const backquoted = (spec: string) => `export const load = () => import(\`${spec}\`);\n`;
  const typed = (spec: string) => `export type T = typeof import('${spec}');\n`;
  const cases: Array<[string, string, RegExp | undefined]> = [
    ['src/node/x.ts', '../installation/desired.ts', /upward into installation\//],
    ['src/agent/x.ts', '../cli/main.ts', /upward into cli\//],
    ['uninstaller/x.ts', '../installer/install.ts', /upward into installer\//],
    ['src/agent/x.ts', '../installation/prepare.ts', /upward into installation\//],
    ['src/core/x.ts', '../resources/resources.ts', /reconcile core imports no folder/],
    ['src/core/x.ts', '../layout.ts', /knows no installation/],
    ['src/core/x.ts', '../messages.ts', /renders no message/],
    ['src/host/x.ts', '../core/step.ts', /upward into core\//],
    // Downward, and within a folder, stay allowed; so does a package.
    ['src/cli/x.ts', './commands/install.ts', undefined],
    ['src/cli/x.ts', '../../installer/install.ts', undefined],
    ['src/installation/x.ts', '../node/identity-store.ts', undefined],
    ['src/cli/x.ts', 'yargs', undefined],
  ];
  for (const [file, spec, expected] of cases) {
    for (const text of [dynamic(spec), backquoted(spec), typed(spec)]) {
      const found = await layerMessages(text, file);
      if (expected === undefined) assert.deepEqual(found, [], `${file} → ${spec}`);
      else {
        assert.equal(found.length, 1, `${file} → ${spec}: ${found.join('; ')}\n${text}`);
        assert.match(found[0] ?? '', expected);
      }
    }
  }
});

test('issue #38 lint refuses `new Error(` in the product outside the files it allows, and leaves tests alone', async () => {
  const bare = async (
    filePath: string,
    text = "export function f(): never {\n  throw new Error('useradd failed');\n}\n",
  ) => {
    const [result] = await eslint.lintText(text, { filePath: `${root}${filePath}` });
    assert.ok(result !== undefined, filePath);
    return result.messages.filter((m) => m.ruleId === 'oac/no-bare-error');
  };
  for (const file of ['src/host/x.ts', 'installer/x.ts', 'uninstaller/x.ts', 'records/x.ts']) {
    const found = await bare(file);
    assert.equal(found.length, 1, file);
    assert.match(found[0]?.message ?? '', /oacError\(code, values\)/);
  }
  assert.deepEqual(await bare('src/resources/refusal-error.ts'), [], 'an allowed guard');
  const called = "export function f(): never {\n  throw Error('useradd failed');\n}\n";
  assert.equal((await bare('src/host/x.ts', called)).length, 1, 'Error(…) without new');
  assert.deepEqual(await bare('test/unit/x.test.ts'), [], 'tests throw as they like');
});
