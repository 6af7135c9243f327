// `node --import tsx bench/startup.ts [--runs N]`: the executable's start (issue #13), beside
// `node -e 0` measured in the same run: whole-process wall time of `oac-node --version` and
// `oac-node --help`, medians of N runs each, in rotating order. Prints a table with the ratio
// and the target; never fails (a bench, not a test). Needs dist/ (npm run build).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { requireExecutable } from '../test/helpers/executable.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' } } });
const runs = Number(values.runs);
const exe = process.env.OAC_BENCH_EXE ?? requireExecutable();

const cases = [
  { name: 'node -e 0', argv: [process.execPath, '-e', '0'], target: undefined },
  { name: 'oac-node --version', argv: [exe, '--version'], target: 1.5 },
  { name: 'oac-node --help', argv: [exe, '--help'], target: 1.7 },
];

function wallMs(argv: string[]): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(argv[0] ?? '', argv.slice(1), {
    stdio: 'ignore',
    env: { PATH: process.env.PATH },
  });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${String(r.status)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const samples = new Map(cases.map((c) => [c.name, [] as number[]]));
for (const c of cases) wallMs(c.argv); // warm the page cache
for (let i = 0; i < runs; i += 1)
  for (const c of [...cases.slice(i % cases.length), ...cases.slice(0, i % cases.length)])
    samples.get(c.name)?.push(wallMs(c.argv));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const base = median(samples.get('node -e 0') ?? []);
process.stdout.write(`bench/startup: ${runs} runs each, medians (whole process, wall time)\n`);
for (const c of cases) {
  const ms = median(samples.get(c.name) ?? []);
  const ratio = ms / base;
  const target =
    c.target === undefined ? '' : `target ≤ ${c.target}×: ${ratio <= c.target ? 'met' : 'not met'}`;
  process.stdout.write(
    `  ${c.name.padEnd(20)} ${ms.toFixed(0).padStart(5)} ms  ${ratio.toFixed(2)}× node -e 0  ${target}\n`,
  );
}
