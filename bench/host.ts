// `npm run bench:host [-- --runtime-mib 1024 --runs 7]`: the figures of a real install (issue
// #13), on the e2e tests' throwaway host (systemd + Docker, test/e2e/harness) with the
// reference Core in its network namespace and a release whose Runtime archive is 1 GiB:
//   - the first install, phase by phase (the installer fetched, unpacked as it arrives and
//     checked with the line's own check; preflight, each step, the wait for ready), from its
//     --json events stamped as they arrive;
//   - the pasted line again on the converged host (no-op rerun), `install --dry-run` and
//     `status`, medians of N runs;
//   - the peak RSS of every oac-node process of the first install (sampled from /proc).
// Times are taken inside the host (bash's EPOCHREALTIME), so entering it costs nothing here.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildRelease } from '../fixtures/release/build.ts';
import { runtimeImageFile } from '../src/node/node-files.ts';
import { bootHost, type E2eHost } from '../test/e2e/harness/host.ts';
import { startCoreInHost, type CoreInHost } from '../test/e2e/helpers/core-in-host.ts';
import { fromLine } from '../test/e2e/helpers/install-line.ts';
import { sha256Into } from '../installer/one-liner.ts';
import { requireExecutable, repoRoot } from '../test/helpers/executable.ts';
import { isMain, median, tableOf, type Figure } from './figures.ts';

const MiB = 1024 * 1024;
/** The node half's step that downloads and loads the Runtime archive (its --json events). */
const RUNTIME_STEP = 'node:runtime';

interface Timed {
  seconds: number;
  status: number;
  /** Output lines with the host's time (seconds) each arrived. */
  lines: Array<{ at: number; text: string }>;
  started: number;
}

/** Runs `command` (bash) in the host, stamping each output line as it arrives. */
async function timed(host: E2eHost, command: string, stdin = ''): Promise<Timed> {
  const script = [
    't0=$EPOCHREALTIME',
    `{ ${command} ; } 2>&1 | while IFS= read -r l; do printf '%s %s\\n' "$EPOCHREALTIME" "$l"; done`,
    'rc=${PIPESTATUS[0]}',
    'printf "END %s %s %s\\n" "$t0" "$EPOCHREALTIME" "$rc"',
  ].join('; ');
  const r = await host.exec(['bash', '-c', script], { stdin, timeoutMs: 900_000 });
  const rows = r.stdout.trimEnd().split('\n');
  const end = /^END (\S+) (\S+) (\d+)$/.exec(rows.at(-1) ?? '');
  if (end === null) throw new Error(`no timing from the host: ${r.stdout}${r.stderr}`);
  const lines = rows.slice(0, -1).map((row) => {
    const space = row.indexOf(' ');
    return { at: Number(row.slice(0, space)), text: row.slice(space + 1) };
  });
  const [started, ended] = [Number(end[1]), Number(end[2])];
  return { seconds: ended - started, status: Number(end[3]), lines, started };
}

function okOrThrow(what: string, t: Timed): Timed {
  if (t.status !== 0)
    throw new Error(`${what} exited ${t.status}:\n${t.lines.map((l) => l.text).join('\n')}`);
  return t;
}

/** Peak RSS (VmHWM) per oac-node command inside the host, sampled until stop(). */
function sampleMemory(host: E2eHost): { stop(): Map<string, number> } {
  const pidNs = readlinkSync(`/proc/${host.leaderPid}/ns/pid`);
  const peaks = new Map<string, number>();
  const sample = () => {
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      try {
        if (readlinkSync(`/proc/${pid}/ns/pid`) !== pidNs) continue;
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const command = argv.find((a) => ['install', '_prepare', 'run', 'status'].includes(a));
        const ours = argv.some((a) => a.includes('oac-node') || a.includes('node-bootstrap'));
        if (command === undefined || !ours) continue;
        const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
        const mb = (Number(kb) * 1024) / 1e6;
        if (mb > (peaks.get(command) ?? 0)) peaks.set(command, mb);
      } catch {
        // gone meanwhile
      }
    }
  };
  const timer = setInterval(sample, 25);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

interface Alone {
  /** curl of the archive to a file, then fsync'ed (`sync FILE`): the network and the disk. */
  download: number;
  /** The SHA-256 of that file (in the page cache) by the faster of OpenSSL and sha256sum: the
   *  verification on its own. */
  hash: number;
  /** `docker load -i` of that verified file. */
  load: number;
}

/** Issue #41's limit for the first install's Runtime archive, measured in the same host just
 *  before it: the download alone (curl), its verification alone (the file's SHA-256), then
 *  `docker load -i` of the same file alone. The image is removed again, so the install that
 *  follows loads it in full. */
async function importAlone(
  host: E2eHost,
  coreUrl: string,
  built: Awaited<ReturnType<typeof buildRelease>>,
): Promise<Alone> {
  const file = runtimeImageFile(built.manifest);
  const url = `${coreUrl}/node-files/${built.release}/${file.name}`;
  const f = '/var/tmp/bench-runtime.tar';
  const download = okOrThrow(
    'the archive alone',
    await timed(host, `curl -fsSL -o ${f} '${url}' && sync ${f}`),
  );
  // The faster of the two tools the host has: OpenSSL's SHA-256 is several times coreutils'.
  const hashes = [];
  for (const tool of ['openssl dgst -sha256 -r', 'sha256sum']) {
    const check = `[ "$(${tool} < ${f} | cut -c1-64)" = ${file.sha256} ]`;
    hashes.push(okOrThrow(`${tool} alone`, await timed(host, check)).seconds);
  }
  const load = okOrThrow('docker load alone', await timed(host, `docker load -q -i ${f}`));
  // The install that follows starts, as this load did, with nothing left for the disk to write
  // (the removal of the image and the file written out first).
  okOrThrow(
    'cleaning up',
    await timed(host, `rm -f ${f} && docker rmi -f '${file.image.reference}' >/dev/null && sync`),
  );
  return { download: download.seconds, hash: Math.min(...hashes), load: load.seconds };
}

interface Phases {
  /** "installer fetched and checked 1.26 s, preflight 0.48 s, …" */
  text: string;
  /** The Runtime archive's step, from its start to its done (seconds), and the moment inside
   *  it when the download was verified (its progress event "done"). */
  runtime?: { seconds: number; downloaded?: number };
}

type Event = { type?: string; step?: string; phase?: string };

/** Seconds per phase from the --json events: each step from its start to its done. */
function phasesOf(run: Timed, fetched: number, runtimeStep: string): Phases {
  const parts: string[] = [`installer fetched and checked ${fetched.toFixed(2)} s`];
  let first: number | undefined;
  let runtime: Phases['runtime'];
  let verifiedAt: number | undefined;
  const started = new Map<string, number>();
  for (const { at, text } of run.lines) {
    let event: Event;
    try {
      event = JSON.parse(text) as Event;
    } catch {
      continue;
    }
    if (event.type === 'step-start' && event.step !== undefined) {
      first ??= at;
      started.set(event.step, at);
    }
    if (event.type === 'progress' && event.step === runtimeStep && event.phase === 'done')
      verifiedAt ??= at;
    if ((event.type === 'step-done' || event.type === 'summary') && started.size > 0) {
      const step = event.type === 'summary' ? 'ready' : (event.step ?? '?');
      const from = started.get(step);
      if (from === undefined || at - from < 0.005) continue;
      let part = `${step} ${(at - from).toFixed(2)} s`;
      if (step === runtimeStep) {
        const downloaded = verifiedAt === undefined ? undefined : verifiedAt - from;
        runtime = { seconds: at - from, downloaded };
        if (downloaded !== undefined)
          part += ` (downloaded and verified ${downloaded.toFixed(2)} s, then loaded ${(at - from - downloaded).toFixed(2)} s)`;
      }
      parts.push(part);
    }
  }
  if (first !== undefined) parts.splice(1, 0, `preflight ${(first - run.started).toFixed(2)} s`);
  return { text: parts.join(', '), runtime };
}

export async function measureHost(runtimeMiB = 1024, runs = 7): Promise<Figure[]> {
  const work = await mkdtemp(join(tmpdir(), 'oac-bench-host-'));
  let host: E2eHost | undefined;
  let core: CoreInHost | undefined;
  try {
    const exe = requireExecutable();
    const version = (
      JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }
    ).version;
    const built = await buildRelease({
      executable: exe,
      executableGz: `${exe}.gz`,
      outDir: join(work, 'release'),
      version,
      runtimePaddingBytes: runtimeMiB * MiB,
      runtimeGzipLevel: 0,
    });
    host = await bootHost();
    core = await startCoreInHost(host, ['--release-dir', join(work, 'release')]);
    const issued = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
    const { command, token } = issued.body as { command: string; token: string };
    const { installationId: id, uninstall, sha } = fromLine(command);
    const installer = uninstall[3] as string;
    const args = `--core-url '${core.coreUrl}' --installation-id '${id}'`;

    // The first install: the installer fetched and unpacked (the line downloads first, then
    // unpacks), checked with the line's own check, then its run.
    const fetch = okOrThrow(
      'fetching the installer',
      await timed(
        host,
        // The line's own check of the download (OpenSSL, or sha256sum), of "$x.part".
        `s=${sha}; x=${installer}; mkdir -p -m 0700 /root/.oac/node-bootstrap && curl -sS '${core.coreUrl}/node-install/oac-node.gz' | gzip -d > "$x.part" && chmod 0700 "$x.part" && ${sha256Into('"$x.part"')} && [ "\${v%% *}" = "$s" ] && mv "$x.part" "$x"`,
      ),
    );
    const alone = await importAlone(host, core.coreUrl, built);
    const memory = sampleMemory(host);
    const first = okOrThrow(
      'the first install',
      await timed(host, `env -u NODE_OPTIONS ${installer} install ${args} --json`, `${token}\n`),
    );
    const peaks = memory.stop();

    // Converged means settled too: the node's first readiness reports and Docker's own work
    // after a 1 GiB load are over before the reruns are timed.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const rerun: number[] = [];
    const dry: number[] = [];
    const status: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      rerun.push(okOrThrow('the rerun', await timed(host, 'sh', `${command}\n`)).seconds);
      const plan = await timed(host, `env -u NODE_OPTIONS ${installer} install ${args} --dry-run`);
      dry.push(okOrThrow('the dry run', plan).seconds);
      const s = await timed(
        host,
        `env -u NODE_OPTIONS ${installer} status --installation-id '${id}'`,
      );
      status.push(okOrThrow('status', s).seconds);
    }
    const mb = (c: string) => peaks.get(c) ?? Number.NaN;
    const size = `${runtimeMiB} MiB Runtime archive and image`;
    const phases = phasesOf(first, fetch.seconds, RUNTIME_STEP);
    const limit = {
      name: `curl ${alone.download.toFixed(2)} s + SHA-256 ${alone.hash.toFixed(2)} s + \`docker load -i\` ${alone.load.toFixed(2)} s`,
      value: alone.download + alone.hash + alone.load,
    };
    const installed = fetch.seconds + first.seconds;
    return [
      {
        name: `first install, ${size}`,
        value: installed,
        unit: 's',
        compared: limit,
        target: { text: '≤ 1.1×', met: installed <= 1.1 * limit.value },
        note: `${phases.text}; without the verification in the limit (curl + load alone, ${(alone.download + alone.load).toFixed(2)} s): ${(installed / (alone.download + alone.load)).toFixed(2)}×`,
      },
      {
        name: 'of which the Runtime archive (downloaded, verified, loaded)',
        value: phases.runtime?.seconds ?? Number.NaN,
        unit: 's',
        compared: limit,
      },
      {
        name: 'the pasted line again on the converged host (no-op rerun)',
        value: median(rerun),
        unit: 's',
        target: { text: '≤ 0.4 s', met: median(rerun) <= 0.4 },
      },
      {
        name: '`install --dry-run` on the converged host',
        value: median(dry),
        unit: 's',
        target: { text: '≤ 0.4 s', met: median(dry) <= 0.4 },
      },
      {
        name: '`status`',
        value: median(status),
        unit: 's',
        target: { text: '≤ 0.3 s', met: median(status) <= 0.3 },
      },
      {
        name: 'peak RSS of the `_prepare` child (downloads the Runtime archive)',
        value: mb('_prepare'),
        unit: 'MB',
        target: { text: '≤ 100 MB', met: mb('_prepare') <= 100 },
        note: `the installer (install) ${mb('install').toFixed(1)} MB; the node (run) ${mb('run').toFixed(1)} MB`,
      },
    ];
  } finally {
    await core?.stop();
    await host?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      'runtime-mib': { type: 'string', default: '1024' },
      runs: { type: 'string', default: '7' },
    },
  });
  const figures = await measureHost(Number(values['runtime-mib']), Number(values.runs));
  process.stdout.write(`${tableOf(figures)}\n`);
}
