// DECL-05: the line after a saved plan names a command that can be copied as it is (SEC-09).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { planSavedLine } from '../../src/ui/plan-saved.ts';

test('DECL-05 SEC-09 the apply command after a saved plan is one shell word for any path', () => {
  assert.equal(
    planSavedLine('/root/node.plan', '/root/.oac/node-bootstrap/abc'),
    'Plan saved to /root/node.plan; apply it with: sudo /root/.oac/node-bootstrap/abc apply /root/node.plan\n',
  );
  for (const path of ["/root/a plan's $HOME `x`.json", '/tmp/a;b', '/tmp/-x']) {
    const line = planSavedLine(path, '/opt/the installer');
    assert.match(line, /apply it with: sudo '\/opt\/the installer' apply /);
    const command = line.slice(line.lastIndexOf(' apply ') + ' apply '.length);
    // The shell reads it back as exactly one argument, the path itself.
    const words = execFileSync('sh', ['-c', `printf '%s\\n' ${command.trim()}`], {
      encoding: 'utf8',
    });
    assert.equal(words, `${path}\n`, command);
  }
});
