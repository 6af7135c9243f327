// `npm run bench`: every benchmark of issue #13 in one run, one table (each figure beside what
// it is compared with, measured in the same run, with the ratio and the target) printed and
// written as JSON (bench/results.json, or --json PATH). About 4 minutes; needs dist/ (npm run
// build), root, Docker and systemd-nspawn, as the e2e tests do. Not run by CI; never fails on
// a figure (a bench, not a test).
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measureDownload } from './download.ts';
import { tableOf, ratioOf, type Figure } from './figures.ts';
import { measureHost } from './host.ts';
import { measureResume } from './resume.ts';
import { measureStartup } from './startup.ts';

const { values } = parseArgs({
  options: {
    json: { type: 'string', default: join(import.meta.dirname, 'results.json') },
    'size-mib': { type: 'string', default: '1024' },
  },
});
const sizeMiB = Number(values['size-mib']);
const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load ${loadavg()
  .map((l) => l.toFixed(2))
  .join(' ')} at the start`;
process.stdout.write(`npm run bench: ${machine}\n`);

const figures: Figure[] = [];
const stages: Array<[string, () => Promise<Figure[]> | Figure[]]> = [
  ['startup', () => measureStartup(21)],
  ['host', () => measureHost(sizeMiB, 7)],
  ['download', () => measureDownload(sizeMiB, 3)],
  ['resume', () => measureResume(sizeMiB)],
];
for (const [name, measure] of stages) {
  const started = performance.now();
  process.stdout.write(`  ${name}…`);
  figures.push(...(await measure()));
  process.stdout.write(` ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}
process.stdout.write(`\n${tableOf(figures)}\n`);
const rows = figures.map((f) => ({ ...f, ratio: ratioOf(f) ?? null }));
writeFileSync(
  values.json,
  `${JSON.stringify({ at: new Date().toISOString(), machine, figures: rows }, null, 2)}\n`,
);
process.stdout.write(`\nwritten to ${values.json}\n`);
