// The guide (l.101): "In a root shell, omit sudo." The commands in hints and summaries keep sudo
// after the line ran through sudo (--sudo) or `sudo oac-node …` (SUDO_USER), and for a user
// who is not root; in a root shell they lose it, except `sudo -u` and prose about sudo. The
// --json error event says what the screen says (OPS-02, issue #39 item 10: its hint kept sudo
// in a root shell while the text dropped it).
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { errorEvent } from '../../src/cli/error-event.ts';
import { oacError } from '../../src/messages.ts';
import { asRoot, decideOperatorShell, forOperator } from '../../src/ui/operator-shell.ts';
import { printable } from '../../src/ui/printable.ts';
import { renderError } from '../../src/ui/render-error.ts';

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
  // Issue #39: the kept installers' and the last run's commands too.
  assert.equal(
    forOperator('remove them with sudo rm -rf /root/.oac/node-bootstrap; sudo cat /var/log/x'),
    'remove them with rm -rf /root/.oac/node-bootstrap; cat /var/log/x',
  );
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

test('OPS-02 PRE-09 issue #39 item 10 the --json error event has the text hint word for word: no sudo in a root shell, sudo otherwise', () => {
  const hintLine = (text: string) => /^ {2}hint: (.*)$/m.exec(text)?.[1];
  for (const [args, env, uid, sudo] of [
    [['status', '--json'], {}, 0, false],
    [['status', '--json', '--sudo'], {}, 0, true],
    [['status', '--json'], { SUDO_USER: 'operator' }, 0, true],
    [['status', '--json'], {}, 1000, true],
  ] as const) {
    decideOperatorShell(args, env, uid);
    const error = oacError('nothing_installed');
    const event = errorEvent(error) as { hint: string };
    assert.equal(event.hint, hintLine(renderError(error)), JSON.stringify({ args, env, uid }));
    assert.equal(/sudo oac-node uninstall/.test(event.hint), sudo);
  }
  // Each detail as the screen shows it too.
  decideOperatorShell(['install', '--json'], {}, 0);
  const detailed = oacError('nothing_installed', {}, { details: ['then sudo oac-node status'] });
  assert.deepEqual((errorEvent(detailed) as { details: string[] }).details, [
    'then oac-node status',
  ]);
  assert.match(renderError(detailed), /^ {2}then oac-node status$/m);
});

test('PRE-09 issue #39 item 10 asRoot: sudo before a command that needs root, none in a root shell', () => {
  assert.equal(asRoot('/opt/oac-node apply /root/x.plan'), 'sudo /opt/oac-node apply /root/x.plan');
  decideOperatorShell(['install'], {}, 0);
  assert.equal(asRoot('/opt/oac-node apply /root/x.plan'), '/opt/oac-node apply /root/x.plan');
});
