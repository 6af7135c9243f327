// issue #28 item 6: the requirement IDs the suite cites, read from the test titles and the row
// tables, per ID the tests and tiers citing it, and the IDs a change would lose
// (scripts/requirement-ids.ts). The sample titles live in strings, never in this file's own
// titles: the script reads these titles too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compareIds,
  formatTally,
  idsIn,
  isCitingFile,
  lostIds,
  requirementPrefixes,
  rowsIn,
  sitesOf,
  tally,
  testsIn,
  tierOf,
} from '../../scripts/requirement-ids.ts';

const SPEC = [
  '# What the node installer must do',
  "tests (`test('INS-07 …')`) cite the IDs",
  '## PRE — preflight',
  '- PRE-01 Not root → fails before reading the token.',
  '- PRE-08 Core and the console reachable.',
  '- HOST-10 One Core per host.',
  '- TRUST-01 The command can carry the SHA-256 pin.',
  '- UNI-03 Uninstall.',
].join('\n');
const PREFIXES = requirementPrefixes(SPEC);

test('issue #28 the prefixes are the spec\'s "- ID" lines only (not an example in prose, not SHA-256)', () => {
  assert.deepEqual([...PREFIXES].sort(), ['HOST', 'PRE', 'TRUST', 'UNI']);
});

test('issue #28 an ID counts only with a known prefix, once, in order; TLS-1, CRLF and SHA-256 are no IDs', () => {
  assert.deepEqual(
    idsIn(
      'UNI-03 TLS-1 CRLF-2 SHA-256 PRE-08 (PRE-01) PRE-08 TRUST-01: xPRE-09 HOST-10a',
      PREFIXES,
    ),
    ['UNI-03', 'PRE-08', 'PRE-01', 'TRUST-01'],
  );
});

test('issue #28 titles: quotes of every kind, a title on the next line, templates, +, modifiers, t.test', () => {
  const source = [
    "import { describe, it, test } from 'node:test';",
    "test('PRE-01 single quotes', () => {});",
    'test("PRE-08 double quotes", () => {});',
    'test(',
    "  'HOST-10 on the next line, with options',",
    '  { timeout: 5000 },',
    '  async () => {},',
    ');',
    'for (const shell of ["dash", "bash"]) test(`UNI-03 ${shell}: a template`, () => {});',
    "test('TRUST-01 ' + 'joined', () => {});",
    "test.skip('PRE-01 skipped still cites', () => {});",
    "it('UNI-03 it', async (t) => { await t.test('PRE-08 a subtest', () => {}); });",
    'test(`${row.req}: no static ID`, () => {});',
    "helper('PRE-01 not a test call');",
    "assert.match(x, /PRE-08/, 'PRE-08 an assertion message is no title');",
    "describe('UNI-03 regular expressions', () => { if (/x/.test(a) || pattern.test(b)) f(); });",
  ].join('\n');
  const sites = testsIn('test/unit/x.test.ts', source, PREFIXES);
  assert.deepEqual(
    sites.map((s) => [s.line, s.ids]),
    [
      [2, ['PRE-01']],
      [3, ['PRE-08']],
      [4, ['HOST-10']],
      [9, ['UNI-03']],
      [10, ['TRUST-01']],
      [11, ['PRE-01']],
      [12, ['UNI-03']],
      [12, ['UNI-03', 'PRE-08']],
      [13, []],
    ],
  );
  assert.equal(sites[3]?.title, 'UNI-03 …: a template');
  assert.equal(sites[4]?.title, 'TRUST-01 joined');
});

test("issue #28 a test inside a describe cites the describe's IDs too", () => {
  const source = [
    "describe('PRE-01 the suite', () => {",
    "  test('its first test', () => {});",
    "  describe.only('HOST-10 nested', () => {",
    "    it('PRE-01 said again', () => {});",
    '  });',
    '});',
    "test('outside', () => {});",
  ].join('\n');
  assert.deepEqual(
    testsIn('test/unit/x.test.ts', source, PREFIXES).map((s) => s.ids),
    [['PRE-01'], ['PRE-01', 'HOST-10'], []],
  );
});

test("issue #28 a row table: each object literal's req: is one test", () => {
  const source = [
    'export interface Row { req: string }',
    "const rows: Row[] = [['a', 1]].map(([name]) => ({ req: 'PRE-08', name }));",
    "rows.push({ req: 'HOST-10 UNI-03', name: 'two' }, { req: 'TLS-1', name: 'junk' });",
    "const notARow = { request: 'PRE-01' };",
  ].join('\n');
  assert.deepEqual(
    rowsIn('test/host/hostile-rows.ts', source, PREFIXES).map((s) => s.ids),
    [['PRE-08'], ['HOST-10', 'UNI-03'], []],
  );
});

test('issue #28 which files cite, and their tiers', () => {
  assert.equal(tierOf('test/unit/a.test.ts'), 'unit');
  assert.equal(tierOf('test/host/a.test.ts'), 'host');
  assert.equal(tierOf('test/e2e/a.test.ts'), 'e2e');
  assert.equal(tierOf('test/helpers/a.ts'), undefined);
  for (const file of ['test/unit/a.test.ts', 'test/e2e/a.test.ts', 'test/host/hostile-rows.ts'])
    assert.ok(isCitingFile(file), file);
  for (const file of [
    'test/e2e/harness/host.ts',
    'test/helpers/core.ts',
    'test/reporters/a.test.ts',
    'scripts/a.test.ts',
    'test/host/other-rows.ts',
  ])
    assert.ok(!isCitingFile(file), file);
});

test('issue #28 the tally counts tests and tiers per ID; rows and describes included', () => {
  const files = new Map([
    ['test/unit/a.test.ts', "test('PRE-01 PRE-08 one', () => {}); test('PRE-01 two', () => {});"],
    ['test/e2e/b.test.ts', "describe('HOST-10 suite', () => { test('x', () => {}); });"],
    ['test/host/c.test.ts', "test('PRE-01 three', () => {});"],
    ['test/host/hostile-rows.ts', "const r = [{ req: 'PRE-08' }];"],
    ['test/helpers/d.ts', "test('UNI-03 not a test file', () => {});"],
  ]);
  const byId = tally(sitesOf(files, PREFIXES));
  assert.deepEqual(
    Object.fromEntries([...byId].map(([id, c]) => [id, [c.tests, [...c.tiers].sort()]])),
    {
      'PRE-01': [3, ['host', 'unit']],
      'PRE-08': [2, ['host', 'unit']],
      'HOST-10': [1, ['e2e']],
    },
  );
  assert.equal(
    formatTally(byId),
    [
      'HOST-10  1 test     e2e',
      'PRE-01   3 tests    unit host',
      'PRE-08   2 tests    unit host',
    ].join('\n'),
  );
});

test('issue #28 lost: the IDs cited before that no test cites now, sorted', () => {
  const before = tally(
    sitesOf(
      new Map([
        [
          'test/e2e/a.test.ts',
          "test('PRE-08 a', () => {}); test('PRE-01 b', () => {}); test('UNI-03 c', () => {});",
        ],
        ['test/unit/b.test.ts', "test('HOST-10 d', () => {});"],
      ]),
      PREFIXES,
    ),
  );
  // PRE-08 moved to the host tier, HOST-10 kept, PRE-01 and UNI-03 gone.
  const now = tally(
    sitesOf(
      new Map([
        ['test/host/a.test.ts', "test('PRE-08 a', () => {});"],
        ['test/unit/b.test.ts', "test('HOST-10 d', () => {}); test('TRUST-01 new', () => {});"],
      ]),
      PREFIXES,
    ),
  );
  assert.deepEqual(lostIds(before, now), ['PRE-01', 'UNI-03']);
  assert.deepEqual(lostIds(before, before), []);
  assert.deepEqual(['PRE-10', 'HOST-2', 'PRE-2', 'DL-1'].sort(compareIds), [
    'DL-1',
    'HOST-2',
    'PRE-2',
    'PRE-10',
  ]);
});
