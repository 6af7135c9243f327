// `npm run bench:startup [-- --runs N]`: the executable's start (issue #13), beside `node -e 0`
// measured in the same run: whole-process wall time of `oac-node --version` and
// `oac-node --help`, without and with a CA variable (issue #41), medians of N runs each, in
// rotating order. Part of `npm run bench`; never
// fails (a bench, not a test). Needs dist/ (npm run build); OAC_BENCH_EXE=PATH for another.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { requireExecutable } from '../test/helpers/executable.ts';
import { isMain, median, tableOf, type Figure } from './figures.ts';

/** Issue #41: a CA variable set (as on hosts behind a private CA), which makes a command restart
 *  in a clean environment (src/host/clean-env.ts); help and the version answer before it. */
const CA_ENV = { NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt' };

function wallMs(argv: string[], extraEnv: Record<string, string> = {}): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(argv[0] ?? '', argv.slice(1), {
    stdio: 'ignore',
    env: { PATH: process.env.PATH, ...extraEnv },
  });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${String(r.status)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export function measureStartup(runs = 21): Figure[] {
  const exe = process.env.OAC_BENCH_EXE ?? requireExecutable();
  const cases: { name: string; argv: string[]; target: number; env?: Record<string, string> }[] = [
    { name: 'node -e 0', argv: [process.execPath, '-e', '0'], target: 0 },
    // Node reads NODE_EXTRA_CA_CERTS itself as it starts, before any code of ours: the same
    // variable's cost is in the base the CA cases are compared with.
    {
      name: 'node -e 0 with NODE_EXTRA_CA_CERTS',
      argv: [process.execPath, '-e', '0'],
      target: 0,
      env: CA_ENV,
    },
    { name: 'oac-node --version', argv: [exe, '--version'], target: 1.1 },
    { name: 'oac-node --help', argv: [exe, '--help'], target: 1.1 },
    {
      name: 'oac-node --help with NODE_EXTRA_CA_CERTS',
      argv: [exe, '--help'],
      target: 1.1,
      env: CA_ENV,
    },
    {
      name: 'oac-node --version with NODE_EXTRA_CA_CERTS',
      argv: [exe, '--version'],
      target: 1.1,
      env: CA_ENV,
    },
  ];
  const samples = new Map(cases.map((c) => [c.name, [] as number[]]));
  for (const c of cases) wallMs(c.argv, c.env); // warm the page cache
  for (let i = 0; i < runs; i += 1)
    for (const c of [...cases.slice(i % cases.length), ...cases.slice(0, i % cases.length)])
      samples.get(c.name)?.push(wallMs(c.argv, c.env));
  return cases
    .filter((c) => c.target > 0)
    .map((c) => {
      const baseName = c.env === undefined ? 'node -e 0' : 'node -e 0 with NODE_EXTRA_CA_CERTS';
      const base = median(samples.get(baseName) ?? []);
      const ms = median(samples.get(c.name) ?? []);
      return {
        name: `\`${c.name}\`, whole process`,
        value: ms,
        unit: 'ms',
        compared: { name: `\`${baseName}\``, value: base },
        target: { text: `≤ ${c.target}× node -e 0`, met: ms / base <= c.target },
      } satisfies Figure;
    });
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' } } });
  process.stdout.write(`bench/startup: medians of ${values.runs} runs each\n`);
  process.stdout.write(`${tableOf(measureStartup(Number(values.runs)))}\n`);
}
