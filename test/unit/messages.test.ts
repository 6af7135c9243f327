import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
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
    message('core_unexpected_response', { status: 404, route: 'GET /x' }),
    'Core answered HTTP 404 to GET /x',
  );
  assert.equal(
    message('core_unexpected_response', { status: 404 }),
    'Core answered HTTP 404 to {route}',
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

// Issue #23: every code the product throws has its line in the table. TypeScript already holds
// oacError's code to a key of MESSAGES; this reads the source text, so a code that reaches an
// error some other way (a cast, a subclass, a refusal written as a literal) is caught too.
const SOURCE_DIRS = ['src', 'installer', 'uninstaller', 'records'];
const CODE_SITES = [
  /\boacError\(\s*'([a-z0-9_]+)'/g,
  /\bnew (?:OacError|CoreError|DownloadError)\(\s*'([a-z0-9_]+)'/g,
  /\b(?:message|hint)\(\s*'([a-z0-9_]+)'/g,
  /\brefuse\(\s*\{\s*code:\s*'([a-z0-9_]+)'/g,
];
// The preflight's fail(code, values) (installer/preflight-checks.ts); src/node/readiness.ts has
// a fail() of its own, for the readiness codes Core knows, which are not ours.
const PREFLIGHT_FAIL = /\bfail\(\s*'([a-z0-9_]+)'/g;

function sourceFiles(): string[] {
  const root = new URL('../../', import.meta.url);
  return SOURCE_DIRS.flatMap((dir) =>
    readdirSync(new URL(`${dir}/`, root), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(dir, name)),
  );
}

test('issue #23 every code thrown in src/, installer/, uninstaller/ and records/ is in the message table', () => {
  const root = new URL('../../', import.meta.url);
  const missing: string[] = [];
  let sites = 0;
  for (const file of sourceFiles()) {
    const text = readFileSync(new URL(file, root), 'utf8');
    const patterns = file.startsWith('installer/') ? [...CODE_SITES, PREFLIGHT_FAIL] : CODE_SITES;
    for (const pattern of patterns) {
      for (const [, code] of text.matchAll(pattern)) {
        sites += 1;
        if (code !== undefined && !(code in MESSAGES)) missing.push(`${file}: ${code}`);
      }
    }
  }
  assert.ok(sites > 50, `only ${sites} sites found: the patterns no longer match the source`);
  assert.deepEqual(missing, [], 'codes thrown but missing from src/messages.ts');
});
