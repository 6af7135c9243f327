// SEC-03: the demo (scripts/demo.ts) prints the line Web would show with its token hidden; the
// line's other printf (the environment's lines) is left as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderInstallCommand } from '../../installer/one-liner.ts';
import { hideToken } from '../../scripts/hide-token.ts';

test('SEC-03 the demo hides the token of the line it prints, and only the token', () => {
  const token = 'oact_Zm9vYmFyYmF6cXV4LXRva2VuLTEyMzQ1Njc4OQ';
  const line = renderInstallCommand({
    consoleUrl: 'http://127.0.0.1:8080',
    coreUrl: 'http://127.0.0.1:8080',
    installationId: 'inst-1',
    installerSha256: 'ab'.repeat(32),
    token,
  });
  const shown = hideToken(line);
  assert.ok(!shown.includes(token), 'no token');
  assert.ok(shown.includes('printf %s "<token>"; echo; } | "$@"'));
  assert.ok(shown.includes('{ printf %s "$l"; echo; }'), 'the environment lines untouched');
  assert.equal(shown.length, line.length - token.length + '<token>'.length);
});
