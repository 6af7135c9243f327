import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MESSAGES, message, oacError, type MessageCode } from '../../src/messages.ts';

const doc = readFileSync(new URL('../../docs/messages.md', import.meta.url), 'utf8');
// Table rows as trimmed cells, so the formatter's column padding does not matter.
const rows = doc
  .split('\n')
  .filter((line) => line.startsWith('|'))
  .map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );

test('PRE-09 docs/messages.md lists every message and hint exactly as the program says them', () => {
  for (const [code, entry] of Object.entries(MESSAGES) as Array<
    [MessageCode, { message: string; hint?: string }]
  >) {
    const row = rows.find((cells) => cells[0] === `\`${code}\``);
    assert.deepEqual(
      row,
      [`\`${code}\``, entry.message, entry.hint ?? ''],
      `docs/messages.md, row ${code}`,
    );
  }
});

test('PRE-09 every message is one line', () => {
  for (const [code, entry] of Object.entries(MESSAGES) as Array<
    [string, { message: string; hint?: string }]
  >) {
    assert.doesNotMatch(entry.message, /\n/, code);
    assert.doesNotMatch(entry.hint ?? '', /\n/, code);
  }
});

test('issue #2 placeholders are filled, and a missing value stays visible', () => {
  assert.equal(
    message('core_unexpected_response', { status: 502, route: 'GET /x' }),
    'Core answered HTTP 502 to GET /x',
  );
  assert.equal(
    message('core_unexpected_response', { status: 502 }),
    'Core answered HTTP 502 to {route}',
  );
});

test('OPS-02 an error built from the table fills its hint as well as its message', () => {
  for (const [code, entry] of Object.entries(MESSAGES) as Array<
    [MessageCode, { message: string; hint?: string }]
  >) {
    const names = [...`${entry.message} ${entry.hint ?? ''}`.matchAll(/\{(\w+)\}/g)];
    const values = Object.fromEntries(names.map((m) => [m[1] ?? '', 'x']));
    const error = oacError(code, values);
    assert.doesNotMatch(error.message, /\{\w+\}/, code);
    assert.doesNotMatch(error.hint ?? '', /\{\w+\}/, code);
  }
});
