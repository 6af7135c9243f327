// The timing report (issue #28): each tier's wall time and test count, and the ten slowest test
// files of all tiers, so the next slowdown is seen when it lands. scripts/test.sh prints it at
// the end, also after a failure; `npm run test:timing` prints it after a tier run on its own.
// The figures are the JSON lines test/reporters/timing.mjs writes, one file per tier:
// .test-timing/unit.jsonl, host.jsonl, e2e.jsonl. Never fails: a report, not a test.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** One test file's wall time: from the spawn of its process to its exit. */
export interface FileTiming {
  tier: string;
  file: string;
  ms: number;
  ok: boolean;
}

/** One tier's run: its files, and the runner's summary unless the run was cut short. */
export interface TierTiming {
  tier: string;
  files: FileTiming[];
  run?: { tests: number; pass: number; fail: number; ms: number; finished: string };
}

/** The tiers in the order the test command runs them; any other file after them, by name. */
const ORDER = ['unit', 'host', 'e2e'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** Parses one tier's JSON lines; a line that is not a figure (a torn last line) is skipped. */
export function parseTier(tier: string, text: string): TierTiming {
  const timing: TierTiming = { tier, files: [] };
  for (const line of text.split('\n')) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(value) || typeof value.ms !== 'number') continue;
    if (value.kind === 'file' && typeof value.file === 'string')
      timing.files.push({ tier, file: value.file, ms: value.ms, ok: value.ok !== false });
    else if (value.kind === 'run')
      timing.run = {
        tests: count(value.tests),
        pass: count(value.pass),
        fail: count(value.fail),
        ms: value.ms,
        finished: typeof value.finished === 'string' ? value.finished : '',
      };
  }
  return timing;
}

/** The `n` slowest files of all tiers, slowest first. */
export function slowest(tiers: TierTiming[], n = 10): FileTiming[] {
  return tiers
    .flatMap((t) => t.files)
    .sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file))
    .slice(0, n);
}

/** A tier's wall time: the runner's, or the sum of its files when the run was cut short. */
export const wallMs = (t: TierTiming): number =>
  t.run?.ms ?? t.files.reduce((sum, f) => sum + f.ms, 0);

export function sortTiers(tiers: TierTiming[]): TierTiming[] {
  const rank = (tier: string) => (ORDER.includes(tier) ? ORDER.indexOf(tier) : ORDER.length);
  return [...tiers].sort((a, b) => rank(a.tier) - rank(b.tier) || a.tier.localeCompare(b.tier));
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const minutes = (ms: number): string => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

function table(head: string[], rows: string[][], right: boolean[]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

/** The report as printed: the tiers with a total, then the slowest files. */
export function formatReport(tiers: TierTiming[], directory = '.test-timing'): string {
  const sorted = sortTiers(tiers);
  if (sorted.length === 0) return `timing report (issue #28): no figures in ${directory}/\n`;
  const tierRows = sorted.map((t) => [
    t.tier,
    String(t.files.length),
    t.run === undefined ? '?' : String(t.run.tests),
    t.run === undefined ? '?' : String(t.run.fail),
    seconds(wallMs(t)),
    minutes(wallMs(t)),
    t.run === undefined
      ? 'cut short: no summary, wall is the sum of its files'
      : `finished ${t.run.finished.slice(0, 16).replace('T', ' ')} UTC`,
  ]);
  const total = sorted.reduce((sum, t) => sum + wallMs(t), 0);
  const tests = sorted.reduce((sum, t) => sum + (t.run?.tests ?? 0), 0);
  tierRows.push(['total', '', String(tests), '', seconds(total), minutes(total), '']);
  const fileRows = slowest(sorted).map((f, i) => [
    String(i + 1),
    seconds(f.ms),
    f.tier,
    f.ok ? f.file : `${f.file} (failed)`,
  ]);
  return [
    `timing report (issue #28; the figures: ${directory}/<tier>.jsonl)`,
    ...table(['tier', 'files', 'tests', 'fail', 'wall', 'm:ss', ''], tierRows, [
      false,
      true,
      true,
      true,
      true,
      true,
      false,
    ]),
    '',
    'the ten slowest test files (wall time of each file, start-up included)',
    ...table(['#', 'wall', 'tier', 'file'], fileRows, [true, true, false, false]),
    '',
  ].join('\n');
}

/** Every tier's figures in `directory` (one <tier>.jsonl each). */
export function readTiers(directory: string): TierTiming[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) =>
      parseTier(basename(name, '.jsonl'), readFileSync(join(directory, name), 'utf8')),
    );
}

const script = process.argv[1];
if (script !== undefined && import.meta.url === new URL(`file://${script}`).href) {
  const directory = process.argv[2] ?? '.test-timing';
  try {
    process.stdout.write(formatReport(readTiers(directory), directory));
  } catch (error) {
    process.stdout.write(`timing report (issue #28): ${String(error)}\n`);
  }
}
