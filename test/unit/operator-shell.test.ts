// The guide (l.101): "In a root shell, omit sudo." The commands in hints and summaries keep sudo
// after the line ran through sudo (--sudo) or `sudo oac-node …` (SUDO_USER), and for a user
// who is not root; in a root shell they lose it, except `sudo -u` and prose about sudo.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { decideOperatorShell, forOperator } from '../../src/ui/operator-shell.ts';
import { printable } from '../../src/ui/printable.ts';

afterEach(() => decideOperatorShell([], {}, 1000));

const hint =
  'Logs: sudo journalctl -u oac-node-x.service; check sudo pgrep -u oac-node, then run sudo -u oac-node rm -rf /s';

test('PRE-09 in a root shell, printed commands omit sudo; sudo -u and prose keep it', () => {
  decideOperatorShell(['install'], {}, 0);
  assert.equal(
    printable(hint),
    'Logs: journalctl -u oac-node-x.service; check pgrep -u oac-node, then run sudo -u oac-node rm -rf /s',
  );
  const prose = "An environment variable set through sudo is recorded in sudo's log";
  assert.equal(forOperator(prose), prose);
});

test('PRE-09 through sudo (the line passes --sudo, or SUDO_USER is set) or as a user, sudo stays', () => {
  for (const [args, env, uid] of [
    [['install', '--sudo'], {}, 0],
    [['status'], { SUDO_USER: 'operator' }, 0],
    [['status'], {}, 1000],
  ] as const) {
    decideOperatorShell(args, env, uid);
    assert.equal(forOperator(hint), hint, JSON.stringify({ args, env, uid }));
  }
});
