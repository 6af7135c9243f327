// DECL-05: the line after a saved plan names a command that can be copied as it is (SEC-09):
// the plan's absolute path, and sudo as the other hints have it, none in a root shell (PRE-09,
// issue #39 item 10: it was `Plan saved to relative.plan; apply it with: sudo …` in any shell).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { decideOperatorShell } from '../../src/ui/operator-shell.ts';
import { planSavedLine } from '../../src/ui/plan-saved.ts';

afterEach(() => decideOperatorShell([], {}, 1000));

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

test('DECL-05 issue #39 item 10 a relative --plan-out is named by its absolute path, from the working directory', () => {
  assert.equal(
    planSavedLine('relative.plan', '/opt/oac-node', '/root/plans'),
    'Plan saved to /root/plans/relative.plan; apply it with: sudo /opt/oac-node apply /root/plans/relative.plan\n',
  );
  assert.match(
    planSavedLine('../b/./c.plan', '/opt/oac-node', '/srv/a'),
    / apply \/srv\/b\/c\.plan\n$/,
  );
  // By default, the process's own working directory: where --plan-out wrote the file.
  assert.equal(
    planSavedLine('x.plan', '/opt/oac-node'),
    planSavedLine(join(process.cwd(), 'x.plan'), '/opt/oac-node', '/'),
  );
});

test('DECL-05 PRE-09 issue #39 item 10 in a root shell the apply command has no sudo; through sudo or as a user it keeps it', () => {
  decideOperatorShell(['install'], {}, 0);
  assert.equal(
    planSavedLine('/root/node.plan', '/opt/the installer'),
    "Plan saved to /root/node.plan; apply it with: '/opt/the installer' apply /root/node.plan\n",
  );
  for (const [args, env] of [
    [['install', '--sudo'], {}],
    [['install'], { SUDO_USER: 'operator' }],
  ] as const) {
    decideOperatorShell(args, env, 0);
    assert.match(planSavedLine('/root/node.plan', '/opt/oac-node'), /with: sudo \/opt\/oac-node /);
  }
});
