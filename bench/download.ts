// `npm run bench:download [-- --size-mib 1024 --runs 3]`: the installer's download + verify of
// one large file against `curl -o f && sha256sum f` and against the disk's own write rate
// (`dd bs=1M conv=fsync` of the same file), in the same run, from the same local server (the
// reference Core's console, on loopback), and the downloader's peak RSS. Part of `npm run
// bench`; it prints figures, it is not a test (docs/design.md "Tests, in tiers"). See bench/README.md.
//
// The downloader runs in a child process bundled by esbuild the way `npm run build` bundles the
// product (CommonJS, node20), so its peak RSS is the product's code and nothing of tsx.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { startCore } from '../test/helpers/core.ts';
import { cpuUseSince, machineCpus } from './cpu.ts';
import { isMain, median, tableOf, type Figure } from './figures.ts';
import { NAME, RELEASE, writeNodeFileRelease } from './node-file-release.ts';

const root = resolve(import.meta.dirname, '..');

// The child: the product's downloadFile with the product's dispatcher, nothing else.
const CHILD_SOURCE = `
import { readFileSync } from 'node:fs';
import { createDispatcher } from './src/net/dispatcher.ts';
import { downloadFile } from './src/net/download.ts';
import { limitDownloadMemory } from './src/net/download-memory.ts';

async function main(): Promise<void> {
  const [url, dest, size, sha256, mode] = process.argv.slice(2);
  if (mode === 'limited') limitDownloadMemory();
  const dispatcher = createDispatcher();
  const started = performance.now();
  const outcome = await downloadFile({ url: url!, dest: dest!, size: Number(size), sha256: sha256!, dispatcher });
  const ms = performance.now() - started;
  await dispatcher.close();
  const hwm = /VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  process.stdout.write(JSON.stringify({ outcome, ms, maxRssKiB: process.resourceUsage().maxRSS, vmHwmKiB: Number(hwm) }) + '\\n');
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

interface ChildResult {
  outcome: string;
  ms: number;
  maxRssKiB: number;
  vmHwmKiB: number;
}

export async function measureDownload(sizeMiB = 1024, runs = 3): Promise<Figure[]> {
  const size = sizeMiB * 1024 * 1024;
  const work = await mkdtemp(join(tmpdir(), 'oac-bench-download-'));
  let core: Awaited<ReturnType<typeof startCore>> | undefined;
  try {
    const releaseDir = join(work, 'release');
    const { sha256 } = await writeNodeFileRelease(releaseDir, size);
    core = await startCore(['--release-dir', releaseDir]);
    const url = `${core.console_url}/node-files/${RELEASE}/${NAME}`;
    const child = join(work, 'download-child.cjs');
    await bundleChild(child);

    // Per run, in rotating order: the disk's write rate (dd of the same, page-cached file),
    // curl + sha256sum, the transfer alone (curl to /dev/null: the sender and the socket, no
    // disk), the transfer and the disk without a hash (curl to a file, then sync), the installer
    // as every downloading process runs it (with limitDownloadMemory(), which _prepare and the
    // node's run call at startup) and the installer with V8's defaults.
    const contenders = ['dd', 'curl', 'transfer', 'written', 'limited', 'default'] as const;
    type Who = (typeof contenders)[number];
    const samples = () =>
      Object.fromEntries(contenders.map((c) => [c, [] as number[]])) as Record<Who, number[]>;
    const ms = samples();
    const peakKiB = Object.fromEntries(contenders.map((c) => [c, 0])) as Record<Who, number>;
    // How busy the CPUs were during each (all processes and the kernel), and the sender's own
    // CPU time: on a machine whose CPUs are all busy, the CPU is the limit, not the disk.
    const busy = samples();
    const sender = samples();
    const sending = core.pid;
    // The download inside the child, from its call to its verified rename: without Node's start.
    const inside: number[] = [];
    for (let run = 1; run <= runs; run += 1) {
      const dest = join(work, `run-${run}`);
      const order = contenders.map((_, i) => contenders[(i + run - 1) % contenders.length]!);
      for (const who of order) {
        const started = performance.now();
        const cpu = cpuUseSince(sending);
        if (who === 'dd') {
          const source = join(releaseDir, NAME);
          await exec('dd', [`if=${source}`, `of=${dest}`, 'bs=1M', 'conv=fsync', 'status=none']);
        } else if (who === 'transfer') {
          await exec('curl', ['-sS', '-o', '/dev/null', url]);
        } else if (who === 'written') {
          await exec('sh', ['-c', 'curl -sS -o "$1" "$2" && sync "$1"', 'sh', dest, url]);
        } else if (who === 'curl') {
          const script = 'curl -sS -o "$1" "$2" && sha256sum "$1"';
          const out = await exec('sh', ['-c', script, 'sh', dest, url]);
          if (!out.startsWith(sha256)) throw new Error(`curl + sha256sum printed ${out}`);
        } else {
          const out = await exec(process.execPath, [child, url, dest, String(size), sha256, who]);
          const result = JSON.parse(out) as ChildResult;
          if (result.outcome !== 'downloaded') throw new Error(`downloader said ${out}`);
          // VmHWM, not getrusage's maxRSS: after fork + exec that counts the parent's pages
          // (this bench's, which hold a 1 GiB release after bench/host.ts), not the child's.
          peakKiB[who] = Math.max(peakKiB[who], result.vmHwmKiB);
          if (who === 'limited') inside.push(result.ms);
        }
        ms[who].push(performance.now() - started);
        const used = cpu();
        busy[who].push(used.busyCores);
        sender[who].push(used.watchedSeconds);
        await rm(dest, { force: true });
      }
    }
    const s = (who: Who) => median(ms[who]) / 1000;
    const mb = (who: Who) => (peakKiB[who] * 1024) / 1e6;
    const label = `${sizeMiB} MiB`;
    return [
      {
        name: `download + verify ${label} on loopback`,
        value: s('limited'),
        unit: 's',
        compared: { name: '`dd bs=1M conv=fsync`', value: s('dd') },
        target: { text: '≤ 1.2× dd', met: s('limited') / s('dd') <= 1.2 },
        note:
          `curl -o f && sha256sum f: ${s('curl').toFixed(2)} s (${(s('limited') / s('curl')).toFixed(2)}×); ` +
          `the transfer alone (curl -o /dev/null) ${s('transfer').toFixed(2)} s, transfer and disk without a hash ` +
          `(curl -o f && sync f) ${s('written').toFixed(2)} s (${(s('limited') / s('written')).toFixed(2)}×); ` +
          `with V8's defaults ${s('default').toFixed(2)} s; the download itself (in the process, ` +
          `without Node's start) ${(median(inside) / 1000).toFixed(2)} s; ${cpuNote(busy, sender)}`,
      },
      {
        name: `peak RSS of that download (as every downloading process runs it)`,
        value: mb('limited'),
        unit: 'MB',
        target: { text: '≤ 100 MB', met: mb('limited') <= 100 },
        note: `with V8's defaults (no limitDownloadMemory()): ${mb('default').toFixed(1)} MB`,
      },
    ];
  } finally {
    await core?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/** The CPUs during each contender (medians), and the sender's CPU during ours: when ours keeps
 *  every CPU busy, the wall time cannot fall below the CPU work divided by the CPUs. */
function cpuNote(busy: Record<string, number[]>, sender: Record<string, number[]>): string {
  const cores = (who: string) => median(busy[who] ?? []).toFixed(2);
  return (
    `CPUs busy on average (of ${machineCpus()}): ours ${cores('limited')}, ` +
    `curl -o f && sync f ${cores('written')}, curl -o /dev/null ${cores('transfer')}, ` +
    `dd ${cores('dd')}; the sender (the reference Core) used ` +
    `${median(sender.limited ?? []).toFixed(2)} s of CPU during ours`
  );
}

async function bundleChild(outfile: string): Promise<void> {
  await build({
    stdin: { contents: CHILD_SOURCE, resolveDir: root, loader: 'ts', sourcefile: 'bench-child.ts' },
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
  });
}

function exec(command: string, args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolvePromise(stdout.trim())
        : reject(new Error(`${command} exited with ${code}: ${stderr.trim()}`)),
    );
  });
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      'size-mib': { type: 'string', default: '1024' },
      runs: { type: 'string', default: '3' },
    },
  });
  const figures = await measureDownload(Number(values['size-mib']), Number(values.runs));
  process.stdout.write(`${tableOf(figures)}\n`);
}
