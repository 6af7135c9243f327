// Issue #25 item 1: command-line values through a schema. A duration is seconds, or seconds,
// minutes or hours with their unit; anything else is a usage error (64), never NaN.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTimeout } from '../../src/cli/options.ts';
import { EXIT, isOacError } from '../../src/errors.ts';

test('issue #25 --timeout takes 300, 300s, 5m and 1h, as seconds', () => {
  const seconds = ['300', '300s', '5m', '1h', ' 90 ', '86400'].map((v) => parseTimeout(v));
  assert.deepEqual(seconds, [300, 300, 300, 3600, 90, 86_400]);
  assert.equal(parseTimeout(300), 300, "yargs' default as a number");
});

test('issue #25 --timeout refuses what is no duration of 1 s to 24 h, as a usage error', () => {
  for (const bad of ['5x', '0', '0m', '25h', '86401', '-5', '1.5m', 'NaN', '', '5 m', '1e3'])
    assert.throws(
      () => parseTimeout(bad),
      (e) => isOacError(e) && e.exitCode === EXIT.usage && e.message.startsWith('--timeout takes'),
      bad,
    );
});
