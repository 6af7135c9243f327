// What the executable answers before its parser loads (issue #41): src/cli/quick-answers.ts,
// shared by the executable's main and the bundle's entry. The built help itself is compared
// with yargs' in test/host/executable.test.ts.
import assert from 'node:assert/strict';
import test from 'node:test';
import { quickAnswer } from '../../src/cli/quick-answers.ts';
import { VERSION } from '../../src/version.ts';

test('OPS-06 issue #41 --version and -V alone are answered at once with the bare version line', () => {
  assert.equal(quickAnswer(['--version']), `${VERSION}\n`);
  assert.equal(quickAnswer(['-V']), `${VERSION}\n`);
});

test('OPS-06 issue #41 anything else goes to the parser: --version --json, a command, two words, nothing; --help under tsx (no help rendered at build time)', () => {
  for (const args of [
    ['--version', '--json'],
    ['version'],
    ['status', '--version'],
    [],
    ['--help'],
    ['-h'],
    ['--versions'],
  ])
    assert.equal(quickAnswer(args), undefined, JSON.stringify(args));
});
