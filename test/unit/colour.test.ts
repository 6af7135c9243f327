// OPS-05 (issue #25 item 4): colour only on a terminal and only when the operator allows it;
// never around anything but text escaped already (SEC-09); --quiet keeps what changes.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { oacError } from '../../src/messages.ts';
import type { EngineEvent } from '../../src/core/events.ts';
import { colourAllowed, decideColour } from '../../src/ui/colour.ts';
import { renderError } from '../../src/ui/render-error.ts';
import { plainRenderer } from '../../src/ui/render-events.ts';

const ESC = '\u001b';
const both = { stdout: true, stderr: true };
afterEach(() => decideColour([], {}, { stdout: false, stderr: false }));

test('OPS-05 BOOT-05 colour is allowed unless --no-color, a non-empty NO_COLOR or TERM=dumb says otherwise', () => {
  assert.equal(colourAllowed([], { TERM: 'xterm' }), true);
  assert.equal(colourAllowed(['install', '--no-color'], {}), false);
  assert.equal(colourAllowed(['--color=false', 'status'], {}), false);
  assert.equal(colourAllowed(['status', '--color', 'false'], {}), false);
  assert.equal(colourAllowed([], { NO_COLOR: '1' }), false);
  assert.equal(colourAllowed([], { NO_COLOR: '' }), true, 'no-color.org: an empty value is unset');
  assert.equal(colourAllowed([], { TERM: 'dumb' }), false);
});

test('OPS-05 the error line and the hint label are coloured on a terminal, plain on a pipe', () => {
  const error = oacError('not_root');
  decideColour([], {}, both);
  const coloured = renderError(error);
  assert.ok(coloured.startsWith(`${ESC}[`), JSON.stringify(coloured));
  assert.ok(coloured.includes('Node installation and removal require root'));
  decideColour([], {}, { stdout: true, stderr: false });
  assert.equal(
    renderError(error),
    'oac-node: Node installation and removal require root\n  hint: Run the command from Web as it is: it uses sudo, or run it in a root shell.',
  );
  decideColour([], { NO_COLOR: '1' }, both);
  assert.ok(!renderError(error).includes(ESC), 'NO_COLOR wins over a terminal');
});

test('OPS-05 issue #39 --color asks for colour on a pipe too, over NO_COLOR; --color false still refuses it', () => {
  const error = oacError('not_root');
  const pipes = { stdout: false, stderr: false };
  decideColour(['status', '--color'], { NO_COLOR: '1' }, pipes);
  assert.ok(renderError(error).startsWith(`${ESC}[`), 'forced into a pipe');
  decideColour(['--color=true', 'status'], {}, pipes);
  assert.ok(renderError(error).startsWith(`${ESC}[`));
  decideColour(['status', '--color', 'false'], {}, both);
  assert.ok(!renderError(error).includes(ESC));
  decideColour(['status'], {}, pipes);
  assert.ok(!renderError(error).includes(ESC), 'a pipe without --color: plain');
});

test('OPS-05 SEC-09 colour goes around escaped text: an escape sequence in a message still arrives escaped', () => {
  decideColour([], {}, both);
  const hostile = oacError('path_taken', { path: `/usr/local/sbin/x${ESC}]52;c;aGk=${ESC}\\` });
  const out = renderError(hostile);
  assert.ok(!out.includes(`${ESC}]52`), 'no OSC 52 clipboard write reaches the terminal');
  // Every escape left is one of colour's own (CSI … m).
  const rest = out.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');
  assert.ok(!rest.includes(ESC), JSON.stringify(out));
});

const step = (outcome: string, detail: string): EngineEvent =>
  ({ type: 'step-done', step: detail, result: { outcome, detail } }) as unknown as EngineEvent;

test('OPS-05 --quiet prints what changed and what was kept, never what stayed, progress or notes', () => {
  const lines: string[] = [];
  const render = plainRenderer(
    (t) => lines.push(t),
    false,
    () => 0,
    true,
  );
  render(step('unchanged', '/usr/local/lib/oac-node'));
  render(step('created', '/usr/local/sbin/oac-node'));
  render(step('skipped', 'no /etc/oac-node/x.env'));
  render(step('kept', 'the Runtime image'));
  render({ type: 'note', message: 'oac-node is in the docker group' } as unknown as EngineEvent);
  assert.deepEqual(lines, [
    '  created   /usr/local/sbin/oac-node\n',
    '  kept      the Runtime image\n',
  ]);
  const all: string[] = [];
  const loud = plainRenderer(
    (t) => all.push(t),
    false,
    () => 0,
    false,
  );
  loud(step('unchanged', '/usr/local/lib/oac-node'));
  assert.deepEqual(all, ['  unchanged /usr/local/lib/oac-node\n'], 'without --quiet, every step');
});
