// Issue #23: every error of ours is built from the message table, and lint holds that: the
// no-restricted-syntax rule in eslint.config.js refuses `new OacError(` outside the few files
// that re-raise a code they received. Linted as text under a path, with the project's own
// configuration, so the test shows the rule as `npm run lint` applies it.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

const HAND_BUILT = [
  "import { OacError } from '../errors.ts';",
  '',
  "export const built = new OacError('x', 'y');",
  '',
].join('\n');

async function restricted(text: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${root}${filePath}` });
  assert.ok(result !== undefined, filePath);
  return result.messages
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .map((m) => `${m.line}:${m.column} ${m.message}`);
}

test('issue #23 lint refuses an OacError built by hand in the product', async () => {
  for (const path of ['src/agent/example.ts', 'installer/example.ts', 'records/example.ts']) {
    const found = await restricted(HAND_BUILT, path);
    assert.equal(found.length, 1, `${path}: ${found.join('; ')}`);
    assert.match(found[0] ?? '', /^3:\d+ .*oacError\(code, values, options\)/, path);
  }
});

test('issue #23 lint lets the table build errors, and the files that re-raise a received code', async () => {
  const fromTable = [
    "import { oacError } from '../messages.ts';",
    '',
    "export const built = oacError('token_missing');",
    '',
  ].join('\n');
  assert.deepEqual(await restricted(fromTable, 'src/agent/example.ts'), []);
  for (const path of ['src/resources/refusal-error.ts', 'src/installation/node-half.ts']) {
    assert.deepEqual(await restricted(HAND_BUILT, path), [], path);
  }
});
