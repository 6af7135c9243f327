// DL-01…03 against the reference Core's console and release server, over real HTTP on loopback,
// with its fault switches (docs/reference-core.md). Bytes on the wire are measured from the Core's
// request log, never guessed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { isOacError } from '../../src/errors.ts';
import { createDispatcher, type RoutingDispatcher } from '../../src/net/dispatcher.ts';
import {
  downloadFile,
  type DownloadOptions,
  type DownloadProgress,
} from '../../src/net/download.ts';
import { startCore, type TestCore } from '../helpers/core.ts';

interface ReleaseFile {
  name: string;
  kind: string;
  data: Buffer;
  sha256: string;
}

const RELEASE = '0.1.0-d0wn10ad7e57';
const MiB = 1024 * 1024;
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const make = (name: string, kind: string, size: number): ReleaseFile => {
  const data = randomBytes(size);
  return { name, kind, data, sha256: sha(data) };
};
// The program is big enough that re-fetching what already arrived would show in the log.
const program = make(`oac-node-${RELEASE}-linux-amd64.gz`, 'node-program', 6 * MiB);
const image = make(`oac-${RELEASE}-linux-amd64-runtime.tar.gz`, 'runtime-image', 3 * MiB);
const small = make(
  `oac-${RELEASE}-linux-amd64-microsandbox-runtime.bin`,
  'microsandbox-runtime',
  128 * 1024,
);

let releaseDir: string;
let core: TestCore;
let dispatcher: RoutingDispatcher;
let work: string;

before(async () => {
  releaseDir = await mkdtemp(join(tmpdir(), 'oac-dl-release-'));
  for (const f of [program, image, small]) await writeFile(join(releaseDir, f.name), f.data);
  const manifest = {
    format: 1,
    release: RELEASE,
    created_at: '2026-01-01T00:00:00.000Z',
    files: [program, image, small].map((f) => ({
      name: f.name,
      size: f.data.length,
      sha256: f.sha256,
      kind: f.kind,
      provider: f.kind === 'runtime-image' || f.kind === 'node-program' ? 'any' : 'microsandbox',
    })),
  };
  await writeFile(join(releaseDir, 'manifest.json'), JSON.stringify(manifest));
  core = await startCore(['--release-dir', releaseDir]);
  // Loopback is always direct; a proxy in the environment must not change that.
  dispatcher = createDispatcher({ env: { http_proxy: 'http://127.0.0.1:9', HTTP_PROXY: 'x:1' } });
});
afterEach(async () => {
  await core.coreApi('DELETE', '/__fixture/faults');
  await core.coreApi('DELETE', '/__fixture/requests');
  // Restore every file on disk (some tests damage one).
  for (const f of [program, image, small]) await writeFile(join(releaseDir, f.name), f.data);
});
after(async () => {
  await dispatcher.close();
  await core.stop();
  await rm(releaseDir, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  work = await mkdtemp(join(tmpdir(), 'oac-dl-'));
  return work;
}
afterEach(() => rm(work, { recursive: true, force: true }));

const consoleUrl = (f: ReleaseFile) => `${core.console_url}/node-files/${RELEASE}/${f.name}`;

interface Run {
  events: DownloadProgress[];
  options: DownloadOptions;
}
function options(f: ReleaseFile, dir: string, extra: Partial<DownloadOptions> = {}): Run {
  const events: DownloadProgress[] = [];
  return {
    events,
    options: {
      url: consoleUrl(f),
      dest: join(dir, f.name),
      size: f.data.length,
      sha256: f.sha256,
      dispatcher,
      onProgress: (e) => events.push(e),
      retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
      ...extra,
    },
  };
}

async function arm(target: string, fault: object, count?: number): Promise<void> {
  const r = await core.coreApi('PUT', '/__fixture/faults', { target, fault, count });
  assert.equal(r.status, 204, JSON.stringify(r.body));
}

interface LogEntry {
  server: string;
  method: string;
  path: string;
  range: string | null;
  status: number | null;
  body_bytes: number;
}
async function requestLog(): Promise<LogEntry[]> {
  return (await core.coreApi('GET', '/__fixture/requests')).body as LogEntry[];
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

async function rejectsWith(
  promise: Promise<unknown>,
  code: string,
): Promise<Error & { hint?: string }> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (e: unknown) => e,
  );
  assert.ok(isOacError(error), String(error));
  assert.equal(error.code, code, error.message);
  return error;
}

test('DL-01 a console file is downloaded, checked and renamed into place: 0600, no .part left', async () => {
  const dir = await freshDir();
  const run = options(program, dir);
  assert.equal(await downloadFile(run.options), 'downloaded');
  const dest = join(dir, program.name);
  assert.deepEqual(await readFile(dest), program.data);
  assert.equal((await stat(dest)).mode & 0o777, 0o600);
  assert.equal(await exists(`${dest}.part`), false);
  assert.deepEqual(
    run.events.filter((e) => e.phase !== 'progress').map((e) => e.phase),
    ['start', 'done'],
  );
  const received = run.events.map((e) => e.received);
  assert.deepEqual(
    received,
    [...received].sort((a, b) => a - b),
    'progress only grows',
  );
  assert.ok(run.events.every((e) => e.file === program.name && e.total === program.data.length));
  const log = await requestLog();
  assert.deepEqual(
    log.map((e) => [e.server, e.range, e.status, e.body_bytes]),
    [['core', null, 200, program.data.length]],
  );
});

test('DL-01 a file the console lacks is followed from the console to the release server', async () => {
  const dir = await freshDir();
  assert.equal(await downloadFile(options(image, dir).options), 'downloaded');
  assert.deepEqual(await readFile(join(dir, image.name)), image.data);
  const log = await requestLog();
  assert.deepEqual(
    log.map((e) => [e.server, e.status]),
    [
      ['core', 302],
      ['release', 200],
    ],
  );
});

test('DL-02 a verified file is reused without a single request', async () => {
  const dir = await freshDir();
  await writeFile(join(dir, small.name), small.data);
  const run = options(small, dir);
  assert.equal(await downloadFile(run.options), 'reused');
  assert.deepEqual(await requestLog(), []);
  assert.deepEqual(
    run.events.map((e) => e.phase),
    ['verifying', 'done'],
  );
});

test('DL-02 interrupted: the part keeps what arrived, the rerun resumes it (bytes fetched twice ≤ 1 MiB)', async () => {
  const dir = await freshDir();
  const dest = join(dir, program.name);
  const cut = 2 * MiB + 12_345;
  await arm(program.name, { kind: 'drop', after_bytes: cut });
  const error = await rejectsWith(
    downloadFile(options(program, dir).options),
    'download_interrupted',
  );
  assert.match(error.hint ?? '', /run the command again/);
  assert.equal(await exists(dest), false);
  const kept = (await stat(`${dest}.part`)).size;
  assert.equal(kept, cut, 'everything that arrived is kept');
  assert.equal((await stat(`${dest}.part`)).mode & 0o777, 0o600);

  await core.coreApi('DELETE', '/__fixture/faults');
  const rerun = options(program, dir);
  assert.equal(await downloadFile(rerun.options), 'resumed');
  assert.deepEqual(await readFile(dest), program.data);
  const resuming = rerun.events.find((e) => e.phase === 'resuming');
  assert.equal(resuming?.resumedFrom, kept);
  const log = await requestLog();
  assert.deepEqual(
    log.map((e) => [e.range, e.status]),
    [
      [null, 200],
      [`bytes=${kept}-`, 206],
    ],
  );
  const fetched = log.reduce((sum, e) => sum + e.body_bytes, 0);
  assert.ok(
    fetched - program.data.length <= MiB,
    `fetched twice: ${fetched - program.data.length}`,
  );
});

test('DL-02 a connection dropped mid-file is resumed within the same run', async () => {
  const dir = await freshDir();
  await arm(program.name, { kind: 'drop', after_bytes: 1 * MiB }, 1);
  const run = options(program, dir, { retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 20 } });
  assert.equal(await downloadFile(run.options), 'downloaded');
  assert.deepEqual(await readFile(join(dir, program.name)), program.data);
  assert.ok(run.events.some((e) => e.phase === 'resuming' && e.resumedFrom === 1 * MiB));
  const log = await requestLog();
  assert.deepEqual(
    log.map((e) => e.range),
    [null, `bytes=${MiB}-`],
  );
  assert.equal(
    log.reduce((sum, e) => sum + e.body_bytes, 0),
    program.data.length,
  );
});

test('DL-02 a resumed transfer through the redirect asks the release server for the rest', async () => {
  const dir = await freshDir();
  await arm(image.name, { kind: 'drop', after_bytes: 1 * MiB }, 1);
  await rejectsWith(downloadFile(options(image, dir).options), 'download_interrupted');
  assert.equal(await downloadFile(options(image, dir).options), 'resumed');
  assert.deepEqual(await readFile(join(dir, image.name)), image.data);
  const log = await requestLog();
  assert.deepEqual(
    log.map((e) => [e.server, e.range, e.status]),
    [
      ['core', null, 302],
      ['release', null, 200],
      ['core', `bytes=${MiB}-`, 302],
      ['release', `bytes=${MiB}-`, 206],
    ],
  );
});

test('DL-02 a server that ignores Range restarts the file from zero, and the result is still right', async () => {
  const dir = await freshDir();
  const dest = join(dir, program.name);
  await arm(program.name, { kind: 'drop', after_bytes: 1 * MiB }, 1);
  await rejectsWith(downloadFile(options(program, dir).options), 'download_interrupted');
  await arm(program.name, { kind: 'ignore_range' });
  const run = options(program, dir);
  assert.equal(await downloadFile(run.options), 'downloaded');
  assert.deepEqual(await readFile(dest), program.data);
  assert.equal(await exists(`${dest}.part`), false);
  const phases = run.events.map((e) => e.phase).filter((p) => p !== 'progress');
  assert.deepEqual(phases, ['verifying', 'resuming', 'restarting', 'done']);
  const log = await requestLog();
  assert.deepEqual(log.at(-1), {
    server: 'core',
    method: 'GET',
    path: `/node-files/${RELEASE}/${program.name}`,
    range: `bytes=${MiB}-`,
    status: 200,
    body_bytes: program.data.length,
  });
});

test('DL-02 a complete part that verifies is renamed without a request; a longer one starts over', async () => {
  const dir = await freshDir();
  const dest = join(dir, small.name);
  await writeFile(`${dest}.part`, small.data);
  assert.equal(await downloadFile(options(small, dir).options), 'resumed');
  assert.deepEqual(await readFile(dest), small.data);
  assert.deepEqual(await requestLog(), []);

  await rm(dest);
  await writeFile(`${dest}.part`, Buffer.concat([small.data, Buffer.from('extra')]));
  assert.equal(await downloadFile(options(small, dir).options), 'downloaded');
  assert.deepEqual(await readFile(dest), small.data);
  assert.deepEqual(
    (await requestLog()).map((e) => e.range),
    [null],
  );
});

test('DL-02 416: a server whose file is shorter than the manifest says fails clearly', async () => {
  const dir = await freshDir();
  const dest = join(dir, program.name);
  await writeFile(`${dest}.part`, program.data.subarray(0, 3 * MiB));
  await writeFile(join(releaseDir, program.name), program.data.subarray(0, 2 * MiB));
  const error = await rejectsWith(
    downloadFile(options(program, dir).options),
    'download_size_mismatch',
  );
  assert.match(error.message, new RegExp(`${2 * MiB} bytes.*manifest says ${program.data.length}`));
  assert.deepEqual(
    (await requestLog()).map((e) => e.status),
    [416],
  );
  assert.equal(await exists(dest), false);
});

test('DL-02 416 from a server that has the whole file but will not resume: restart from zero', async () => {
  const dir = await freshDir();
  const dest = join(dir, small.name);
  await writeFile(`${dest}.part`, small.data.subarray(0, 1000));
  const ranges: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    ranges.push(req.headers.range);
    if (req.headers.range !== undefined) {
      res.writeHead(416, {
        'content-range': `bytes */${small.data.length}`,
        'content-length': '0',
      });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-length': String(small.data.length) }).end(small.data);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const run = options(small, dir, { url: `http://127.0.0.1:${port}/f` });
    assert.equal(await downloadFile(run.options), 'downloaded');
    assert.deepEqual(await readFile(dest), small.data);
    assert.deepEqual(ranges, ['bytes=1000-', undefined]);
    assert.ok(run.events.some((e) => e.phase === 'restarting'));
  } finally {
    server.close();
  }
});

test('DL-03 a stalled transfer stops with a hint to check the network and rerun; the part is kept', async () => {
  const dir = await freshDir();
  const dest = join(dir, program.name);
  await arm(program.name, { kind: 'stall', after_bytes: 256 * 1024 });
  const started = Date.now();
  const error = await rejectsWith(
    downloadFile(
      options(program, dir, {
        stallWindowMs: 500,
        retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 },
      }).options,
    ),
    'download_stalled',
  );
  assert.ok(Date.now() - started < 5000, 'stopped after a window or two, not retried');
  assert.match(error.message, /stalled: less than 64 KiB arrived in 500 ms \(256 KiB kept\)/);
  assert.match(error.hint ?? '', /network/);
  assert.match(error.hint ?? '', /run the command again/);
  assert.equal((await stat(`${dest}.part`)).size, 256 * 1024);
  assert.equal(await exists(dest), false);
  assert.equal((await requestLog()).length, 1, 'a stall is not retried (DL-03 says stop)');
});

test('DL-03 a transfer that stalls before its first byte stops too', async () => {
  const dir = await freshDir();
  await arm(small.name, { kind: 'stall' }); // headers, then nothing
  await rejectsWith(
    downloadFile(options(small, dir, { stallWindowMs: 300 }).options),
    'download_stalled',
  );
  assert.equal((await stat(join(dir, `${small.name}.part`))).size, 0);
});

test('DL-03 a drip below 64 KiB per window stops; what arrived is kept', async () => {
  const dir = await freshDir();
  const dest = join(dir, program.name);
  await arm(program.name, { kind: 'drip', bytes_per_minute: 600_000 }); // 10 kB/s
  const started = Date.now();
  await rejectsWith(
    downloadFile(options(program, dir, { stallWindowMs: 1000 }).options),
    'download_stalled',
  );
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 900 && elapsed < 4000, `stopped after ${elapsed} ms`);
  const kept = (await stat(`${dest}.part`)).size;
  assert.ok(kept > 0 && kept < 64 * 1024, `kept ${kept}`);
});

test('DL-03 a slow transfer above the minimum rate completes; progress events stay a few per second', async () => {
  const dir = await freshDir();
  await arm(small.name, { kind: 'drip', bytes_per_minute: 4_000_000 }); // ~66 kB/s, ~2 s
  const run = options(small, dir, { stallWindowMs: 500, minBytesPerWindow: 16 * 1024 });
  const started = Date.now();
  assert.equal(await downloadFile(run.options), 'downloaded');
  const seconds = (Date.now() - started) / 1000;
  assert.deepEqual(await readFile(join(dir, small.name)), small.data);
  const progress = run.events.filter((e) => e.phase === 'progress').length;
  assert.ok(progress >= 3, `${progress} progress events`);
  assert.ok(progress <= seconds * 4 + 2, `${progress} progress events in ${seconds} s`);
});

test('DL-01 wrong_length: a Content-Length that disagrees with the manifest is refused, nothing lands', async () => {
  for (const delta of [1000, -1000]) {
    const dir = await freshDir();
    await arm(small.name, { kind: 'wrong_length', delta }, 1);
    const error = await rejectsWith(
      downloadFile(options(small, dir).options),
      'download_size_mismatch',
    );
    assert.match(error.message, new RegExp(`${small.data.length + delta} bytes`));
    assert.equal(await exists(join(dir, small.name)), false);
    await rm(dir, { recursive: true, force: true });
  }
});

test('DL-01 corrupt bytes are rejected: the part is deleted and dest never appears', async () => {
  const dir = await freshDir();
  const dest = join(dir, program.name);
  const damaged = Buffer.from(program.data);
  damaged[4 * MiB] = (damaged[4 * MiB] ?? 0) ^ 0xff;
  await writeFile(join(releaseDir, program.name), damaged);
  const error = await rejectsWith(downloadFile(options(program, dir).options), 'download_corrupt');
  assert.match(error.message, new RegExp(`manifest says ${program.sha256}`));
  assert.match(error.hint ?? '', /deleted/);
  assert.equal(await exists(dest), false);
  assert.equal(await exists(`${dest}.part`), false);
});

test('DL-01 a damaged part from an earlier run is caught by the final check, then replaced', async () => {
  const dir = await freshDir();
  const dest = join(dir, small.name);
  await writeFile(`${dest}.part`, randomBytes(50_000));
  await rejectsWith(downloadFile(options(small, dir).options), 'download_corrupt');
  assert.equal(await exists(`${dest}.part`), false);
  assert.equal(await downloadFile(options(small, dir).options), 'downloaded');
  assert.deepEqual(await readFile(dest), small.data);
});

test('DL-01 a 5xx is retried within the run; a 404 is not', async () => {
  const dir = await freshDir();
  await arm(small.name, { kind: 'status', status: 503 }, 1);
  const retry = { attempts: 3, baseDelayMs: 10, maxDelayMs: 20 };
  assert.equal(await downloadFile(options(small, dir, { retry }).options), 'downloaded');
  assert.deepEqual(
    (await requestLog()).map((e) => e.status),
    [503, 200],
  );

  await core.coreApi('DELETE', '/__fixture/requests');
  await arm(program.name, { kind: 'absent' });
  const error = await rejectsWith(
    downloadFile(options(program, dir, { retry }).options),
    'download_http_status',
  );
  assert.match(error.message, /answered HTTP 404/);
  assert.equal((await requestLog()).length, 1);
});

test('DL-02 a full disk stops the download with a hint to free space; what fit is kept', async (t) => {
  const dir = await freshDir();
  const mountPoint = join(dir, 'small-fs');
  await mkdir(mountPoint);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch {
    t.skip('cannot mount a tmpfs here (needs root)');
    return;
  }
  try {
    const error = await rejectsWith(
      downloadFile({ ...options(program, mountPoint).options, dest: join(mountPoint, 'f') }),
      'download_disk_full',
    );
    assert.equal(error.message, `The file system of ${join(mountPoint, 'f.part')} is full`);
    assert.match(error.hint ?? '', /^Free space there \(df -h \S+ shows it\)/);
    assert.ok((await stat(join(mountPoint, 'f.part'))).size > 0);
    assert.equal(await exists(join(mountPoint, 'f')), false);
  } finally {
    execFileSync('umount', [mountPoint], { stdio: 'pipe' });
  }
});

test('SEC-02 a symlink or hard link at <dest>.part is replaced, never written through', async () => {
  const dir = await freshDir();
  const dest = join(dir, small.name);
  const victim = join(dir, 'victim');
  await writeFile(victim, 'precious');
  await symlink(victim, `${dest}.part`);
  assert.equal(await downloadFile(options(small, dir).options), 'downloaded');
  assert.equal(await readFile(victim, 'utf8'), 'precious');

  await rm(dest);
  await link(victim, `${dest}.part`);
  assert.equal(await downloadFile(options(small, dir).options), 'downloaded');
  assert.equal(await readFile(victim, 'utf8'), 'precious');
  assert.deepEqual(await readFile(dest), small.data);
});

test('DL-02 a symlink at dest is not reused: it is replaced by the verified file', async () => {
  const dir = await freshDir();
  const dest = join(dir, small.name);
  const elsewhere = join(dir, 'elsewhere');
  await writeFile(elsewhere, small.data);
  await symlink(elsewhere, dest);
  assert.equal(await downloadFile(options(small, dir).options), 'downloaded');
  assert.ok((await lstat(dest)).isFile());
});

test('RERUN-04 an interrupted run (abort signal) stops at once and keeps the part', async () => {
  const dir = await freshDir();
  const dest = join(dir, program.name);
  await arm(program.name, { kind: 'stall', after_bytes: 100_000 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('interrupted by the operator')), 300);
  await assert.rejects(
    downloadFile(options(program, dir, { signal: controller.signal }).options),
    /interrupted by the operator/,
  );
  assert.equal((await stat(`${dest}.part`)).size, 100_000);
});

test('SEC-01 a redirect to plain http off loopback is refused before any request is sent there', async () => {
  const dir = await freshDir();
  const server = createServer((_req, res) => {
    res.writeHead(302, { location: 'http://release.invalid/x' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const error = await rejectsWith(
      downloadFile({ ...options(small, dir).options, url: `http://127.0.0.1:${port}/f` }),
      'download_redirect',
    );
    assert.match(error.message, /http:\/\/release\.invalid.*not https/);
  } finally {
    server.close();
  }
  await assert.rejects(
    downloadFile({ ...options(small, dir).options, url: 'http://user:pw@127.0.0.1:1/f' }),
    (e) => isOacError(e) && e.code === 'download_url' && !e.message.includes('pw'),
  );
});
