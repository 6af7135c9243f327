// issue #28 item 1: the test command ends with a timing report, read from the JSON lines each
// tier's reporter (test/reporters/timing.mjs) writes to .test-timing/<tier>.jsonl.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatReport,
  parseTier,
  slowest,
  sortTiers,
  wallMs,
  type TierTiming,
} from '../../scripts/timing-report.ts';

const lines = (...values: unknown[]) => values.map((v) => JSON.stringify(v)).join('\n') + '\n';
const run = (tests: number, fail: number, ms: number) => ({
  kind: 'run',
  tests,
  suites: 0,
  pass: tests - fail,
  fail,
  cancelled: 0,
  skipped: 0,
  todo: 0,
  ms,
  finished: '2026-01-02T03:04:05.678Z',
});

test('issue #28 a tier file parses into its files and the run; a torn or foreign line is skipped', () => {
  const text =
    lines(
      { kind: 'file', file: 'test/host/lock.test.ts', ms: 1500, ok: true },
      { kind: 'file', file: 'test/host/core-tls.test.ts', ms: 9000, ok: false },
      'not an object',
      { kind: 'file', file: 'test/host/no-ms.test.ts' },
      run(40, 1, 10700),
    ) + '{"kind":"file","file":"test/host/torn';
  const tier = parseTier('host', text);
  assert.deepEqual(tier.files, [
    { tier: 'host', file: 'test/host/lock.test.ts', ms: 1500, ok: true },
    { tier: 'host', file: 'test/host/core-tls.test.ts', ms: 9000, ok: false },
  ]);
  assert.deepEqual(tier.run, {
    tests: 40,
    pass: 39,
    fail: 1,
    ms: 10700,
    finished: '2026-01-02T03:04:05.678Z',
  });
});

test('issue #28 the ten slowest files of all tiers, slowest first, and each tier in run order', () => {
  const files = (tier: string, count: number, base: number) =>
    Array.from({ length: count }, (_, i) => ({
      kind: 'file',
      file: `test/${tier}/f${i}.test.ts`,
      ms: base + i,
    }));
  const tiers = [
    parseTier('e2e', lines(...files('e2e', 6, 60_000), run(30, 0, 400_000))),
    parseTier('unit', lines(...files('unit', 8, 100), run(300, 0, 2_000))),
    parseTier('host', lines(...files('host', 6, 5_000), run(90, 0, 40_000))),
  ];
  const top = slowest(tiers);
  assert.equal(top.length, 10);
  assert.deepEqual(
    top.map((f) => `${f.tier} ${f.ms}`),
    [
      'e2e 60005',
      'e2e 60004',
      'e2e 60003',
      'e2e 60002',
      'e2e 60001',
      'e2e 60000',
      'host 5005',
      'host 5004',
      'host 5003',
      'host 5002',
    ],
  );
  assert.deepEqual(
    sortTiers(tiers).map((t) => t.tier),
    ['unit', 'host', 'e2e'],
  );
});

test('issue #28 the report: wall time and test count per tier, a total, the slowest files', () => {
  const tiers: TierTiming[] = [
    parseTier(
      'host',
      lines(
        { kind: 'file', file: 'test/host/lock.test.ts', ms: 1_234, ok: true },
        { kind: 'file', file: 'test/host/core-tls.test.ts', ms: 65_000, ok: false },
        run(12, 1, 66_500),
      ),
    ),
    parseTier(
      'unit',
      lines({ kind: 'file', file: 'test/unit/retry.test.ts', ms: 900, ok: true }, run(5, 0, 1_000)),
    ),
  ];
  const report = formatReport(tiers);
  const rows = report.split('\n');
  assert.match(
    rows[0] ?? '',
    /timing report \(issue #28; the figures: \.test-timing\/<tier>\.jsonl\)/,
  );
  const unit = rows.findIndex((r) => r.startsWith('unit '));
  const host = rows.findIndex((r) => r.startsWith('host '));
  assert.ok(unit > 0 && host > unit, 'unit before host');
  assert.match(
    rows[unit] ?? '',
    /^unit\s+1\s+5\s+0\s+1\.0 s\s+0:01\s+finished 2026-01-02 03:04 UTC$/,
  );
  assert.match(rows[host] ?? '', /^host\s+2\s+12\s+1\s+66\.5 s\s+1:07\s/);
  assert.match(report, /^total\s+17\s+67\.5 s\s+1:08$/m);
  assert.match(report, /^1\s+65\.0 s\s+host\s+test\/host\/core-tls\.test\.ts \(failed\)$/m);
  assert.match(report, /^2\s+1\.2 s\s+host\s+test\/host\/lock\.test\.ts$/m);
  assert.match(report, /^3\s+0\.9 s\s+unit\s+test\/unit\/retry\.test\.ts$/m);
});

test('issue #28 a tier cut short (no run line) counts the sum of its files; no figures, one line', () => {
  const cut = parseTier(
    'e2e',
    lines(
      { kind: 'file', file: 'test/e2e/install.test.ts', ms: 100_000 },
      { kind: 'file', file: 'test/e2e/rerun.test.ts', ms: 20_000 },
    ),
  );
  assert.equal(cut.run, undefined);
  assert.equal(wallMs(cut), 120_000);
  assert.match(formatReport([cut]), /^e2e\s+2\s+\?\s+\?\s+120\.0 s\s+2:00\s+cut short/m);
  assert.equal(formatReport([]), 'timing report (issue #28): no figures in .test-timing/\n');
});
