// One node file, downloaded resumably and verified (DL-01, DL-02, DL-03; docs/design.md "Network"):
//
//   dest verified already          → 'reused', no request at all
//   <dest>.part left by a last run → hashed from disk, then `Range: bytes=N-` → 'resumed'
//   a 200 to a range request        → the part is emptied and the file restarts from zero
//   fewer than 64 KiB in a minute   → stop with a hint to check the network and rerun; keep the part
//   size or SHA-256 wrong           → the part is deleted; corrupt bytes never become dest
//   otherwise                       → fsync, atomic rename over dest → 'downloaded'
//
// Bytes are hashed while they stream and written in batches beside the target by the Host's part
// file (src/host/part-file.ts). Connection failures and 5xx answers are retried within the run
// (src/net/retry.ts), each retry resuming from what the part holds. Redirects (console → release
// server) are followed here, one request at a time, so the dispatcher routes every hop on its own
// (DL-04) and each hop is checked against SEC-01.
import { createHash, type Hash } from 'node:crypto';
import { basename } from 'node:path';
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import { isVerifiedFile, openPartFile, type PartFile } from '../host/part-file.ts';
import {
  badRedirect,
  corrupt,
  describeFailure,
  DownloadError,
  httpStatus,
  interrupted,
  invalidDownloadUrl,
  isRefusal,
  refused,
  sizeMismatch,
  stalled,
  writeFailed,
} from './download-errors.ts';
import { noteReceived } from './download-memory.ts';
import { StallWatch } from './download-stall.ts';
import { untilAborted } from './linked-abort.ts';
import { withRetry, type RetryPolicy } from './retry.ts';
import { isLoopbackHost } from './url-policy.ts';
import { isOacError } from '../errors.ts';

export type DownloadOutcome = 'reused' | 'downloaded' | 'resumed';

export interface DownloadProgress {
  /**
   * verifying: hashing a file or part already on disk; start: a transfer from zero; resuming: a
   * transfer from `resumedFrom` (the UI prints `Resuming …`); restarting: the server could not
   * resume, the part was emptied; progress: bytes arrived; done: dest is verified in place.
   */
  phase: 'verifying' | 'start' | 'resuming' | 'restarting' | 'progress' | 'done';
  file: string;
  received: number;
  total: number;
  resumedFrom: number;
}

export interface DownloadOptions {
  url: URL | string;
  dest: string;
  size: number;
  sha256: string;
  dispatcher: Dispatcher;
  onProgress?: (event: DownloadProgress) => void;
  signal?: AbortSignal;
  /** DL-03: stop when fewer than `minBytesPerWindow` arrive in `stallWindowMs`. */
  stallWindowMs?: number;
  minBytesPerWindow?: number;
  /** Attempts within this run for connection failures and 5xx (each resumes). */
  retry?: RetryPolicy;
  /** The name in progress events and messages; default the base name of dest. */
  file?: string;
}

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 1000, maxDelayMs: 5000 };
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const WRITE_BATCH = 1024 * 1024;
// On a slow link a batch takes long to fill: what arrived goes to the part at least this often,
// so a node half killed outright (SIGKILL, the OOM killer) loses seconds of bytes, not a batch.
const WRITE_EVERY_MS = 1000;
const PROGRESS_EVERY_MS = 250;

export async function downloadFile(options: DownloadOptions): Promise<DownloadOutcome> {
  const file = options.file ?? basename(options.dest);
  const url = checkedStartUrl(options.url);
  const report = (phase: DownloadProgress['phase'], received: number, resumedFrom = 0) =>
    options.onProgress?.({ phase, file, received, total: options.size, resumedFrom });

  const hashing = () => report('verifying', 0);
  if (await isVerifiedFile(options.dest, options.size, options.sha256, hashing)) {
    report('done', options.size);
    return 'reused';
  }
  const part = await openPartFile(options.dest);
  const transfer = new Transfer(options, file, url, part, report);
  try {
    const outcome = await transfer.run();
    report('done', options.size);
    return outcome;
  } finally {
    await transfer.release();
  }
}

class Transfer {
  private hash: Hash = createHash('sha256');
  private resumedPart = false; // the committed bytes include a part left by an earlier run
  private finished = false;
  private readonly windowMs: number;
  private readonly minBytes: number;

  constructor(
    private readonly o: DownloadOptions,
    private readonly file: string,
    private readonly url: URL,
    private readonly part: PartFile,
    private readonly report: (
      phase: DownloadProgress['phase'],
      received: number,
      from?: number,
    ) => void,
  ) {
    this.windowMs = o.stallWindowMs ?? 60_000;
    this.minBytes = o.minBytesPerWindow ?? 64 * 1024;
  }

  async run(): Promise<DownloadOutcome> {
    const { size } = this.o;
    // A part longer than the file cannot be a prefix of it; a full-length one may be complete.
    if (this.part.size > size) await this.part.truncate();
    if (this.part.size > 0) {
      this.report('verifying', this.part.size);
      this.hash = await this.part.hashExisting();
      this.resumedPart = true;
    }
    if (this.part.size === size) {
      if (this.hash.copy().digest('hex') === this.o.sha256) return this.commit();
      await this.restartFromZero();
    }
    await withRetry(
      this.o.retry ?? DEFAULT_RETRY,
      (error) => error instanceof DownloadError && error.retryable && !this.o.signal?.aborted,
      () => this.attempt(),
    );
    return this.commit();
  }

  /** Closes the part when run() did not commit or discard it: what arrived stays for a rerun. */
  async release(): Promise<void> {
    if (!this.finished) await this.part.keep();
  }

  private async commit(): Promise<DownloadOutcome> {
    const { sha256 } = this.o;
    const actual = this.hash.digest('hex');
    this.finished = true;
    if (actual !== sha256) {
      await this.part.discard();
      throw corrupt(this.file, actual, sha256);
    }
    await this.part.commit();
    return this.resumedPart ? 'resumed' : 'downloaded';
  }

  private async restartFromZero(): Promise<void> {
    await this.part.truncate();
    this.hash = createHash('sha256');
    this.resumedPart = false;
  }

  /** One attempt: an exchange, and a second one without Range when the server refused it. */
  private async attempt(): Promise<void> {
    while ((await this.exchange()) === 'again');
  }

  /** One request (plus its redirects), streamed into the part. */
  private async exchange(): Promise<'done' | 'again'> {
    const { size } = this.o;
    const from = this.part.size;
    this.report(from > 0 ? 'resuming' : 'start', from, from);
    const watch = new StallWatch(this.windowMs, this.minBytes, this.o.signal);
    let via = '';
    let body: Dispatcher.ResponseData['body'] | undefined;
    try {
      const headers: Record<string, string> = { 'accept-encoding': 'identity' };
      if (from > 0) headers.range = `bytes=${from}-`;
      const { response, url } = await this.follow(headers, watch, (v) => (via = v));
      const status = response.statusCode;
      body = response.body;
      const header = (name: string) => String(response.headers[name] ?? '');
      if (status === 416 && from > 0) {
        const total = /^bytes \*\/(\d+)$/.exec(header('content-range'))?.[1];
        if (total !== undefined && Number(total) !== size) {
          throw sizeMismatch(this.file, `${total} bytes`, size);
        }
        // The server has a file of the right size but would not resume it: start over.
        await body.dump();
        await this.restartFromZero();
        this.report('restarting', 0);
        return 'again';
      }
      if (status !== 200 && status !== 206) {
        throw httpStatus(this.file, url.host, status, via);
      }
      const startsAt = status === 206 ? this.checkRange(header('content-range'), from) : 0;
      const length = header('content-length');
      if (length !== '' && Number(length) !== size - startsAt) {
        throw sizeMismatch(this.file, `${Number(length) + startsAt} bytes`, size);
      }
      if (startsAt === 0 && from > 0) {
        // DL-02: a server that cannot resume (a 200 to a range request) restarts from zero.
        await this.restartFromZero();
        this.report('restarting', 0);
      }
      await this.stream(body, watch, startsAt);
      if (this.part.size !== size) {
        throw interrupted(this.file, this.part.size, size, 'the answer ended early', via);
      }
      return 'done';
    } catch (error) {
      if (body !== undefined) discard(body);
      throw this.explain(error, watch, via);
    } finally {
      watch.stop();
    }
  }

  /** A 206 must continue exactly where the part ends, up to the manifest's last byte. */
  private checkRange(contentRange: string, from: number): number {
    const { size } = this.o;
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange);
    const [start, end, total] = [range?.[1], range?.[2], range?.[3]].map(Number);
    if (range === null || total !== size || end !== size - 1 || start !== from) {
      const served =
        range === null
          ? `"${contentRange}"`
          : `bytes ${range.slice(1, 3).join('-')} of ${range[3]}`;
      throw sizeMismatch(this.file, `${served} for a resume from byte ${from}`, size);
    }
    return from;
  }

  private async follow(
    headers: Record<string, string>,
    watch: StallWatch,
    setVia: (via: string) => void,
  ): Promise<{ response: Dispatcher.ResponseData; url: URL }> {
    let url = this.url;
    for (let hop = 0; ; hop += 1) {
      setVia(viaText(this.o.dispatcher, url));
      const pending = request(url, {
        method: 'GET',
        headers,
        dispatcher: this.o.dispatcher,
        signal: watch.signal,
        // The stall watch decides; undici's own timers only back it up.
        headersTimeout: this.windowMs * 2,
        bodyTimeout: this.windowMs * 2,
        // Issue #41: the body keeps up to 256 KiB before undici pauses the socket (64 KiB by
        // default): fewer pauses of a fast transfer (bench/README.md). 1 MiB was no faster,
        // and kept enough chunks alive past a minor GC to take the download over 100 MB.
        highWaterMark: 256 * 1024,
      });
      // The watch ends it even while undici still waits for a connection (issue #27.1).
      const response = await untilAborted(pending, watch.signal, (late) => late.body.destroy());
      if (!REDIRECTS.has(response.statusCode)) return { response, url };
      await response.body.dump().catch(() => undefined);
      const location = response.headers.location;
      if (typeof location !== 'string') return { response, url };
      if (hop >= MAX_REDIRECTS)
        throw badRedirect(this.file, `more than ${MAX_REDIRECTS} redirects`);
      url = checkedRedirect(this.file, new URL(location, url));
    }
  }

  private async stream(body: AsyncIterable<unknown>, watch: StallWatch, from: number) {
    const { size } = this.o;
    let received = this.part.size; // bytes of the file we hold, written or not yet
    let batch: Buffer[] = [];
    let writing: Promise<void> | undefined;
    let writeError: unknown;
    let lastReport = Date.now();
    let lastWrite = lastReport;
    const flush = async (): Promise<void> => {
      await writing;
      if (writeError !== undefined) throw writeError;
      const chunks = batch;
      batch = [];
      if (chunks.length === 0) return;
      // Caught at once: a failed write must not become an unhandled rejection while in flight.
      writing = this.part.append(chunks).catch((error: unknown) => {
        writeError = writeFailed(this.part.path, error);
      });
    };
    let batchBytes = 0;
    try {
      for await (const data of body) {
        const chunk = data as Buffer;
        if (received + chunk.length > size) throw sizeMismatch(this.file, 'more bytes', size);
        this.hash.update(chunk);
        watch.count(chunk.length);
        noteReceived(chunk.length);
        received += chunk.length;
        batch.push(chunk);
        batchBytes += chunk.length;
        const now = Date.now();
        // One write in flight while the next batch fills: the disk and the socket overlap.
        if (batchBytes >= WRITE_BATCH || now - lastWrite >= WRITE_EVERY_MS) {
          batchBytes = 0;
          lastWrite = now;
          await flush();
        }
        if (now - lastReport >= PROGRESS_EVERY_MS) {
          lastReport = now;
          this.report('progress', received, from);
        }
      }
    } finally {
      // Whatever arrived is kept, also when the transfer broke off (DL-02: a rerun resumes).
      await flush();
      await writing;
    }
    if (writeError !== undefined) throw writeError;
    this.report('progress', received, from);
  }

  private explain(error: unknown, watch: StallWatch, via: string): unknown {
    if (watch.stalled) return stalled(this.file, this.minBytes, this.windowMs, this.part.size);
    if (this.o.signal?.aborted) return this.o.signal.reason ?? error;
    // Ours already (a DownloadError, or a pinned key not presented: TRUST-01): as it is.
    if (isOacError(error)) return error;
    const reason = describeFailure(error);
    if (isRefusal(reason)) return refused(this.file, reason, via, error);
    return interrupted(this.file, this.part.size, this.o.size, reason, via, error);
  }
}

function checkedStartUrl(raw: URL | string): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw invalidDownloadUrl('an address that is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidDownloadUrl(`a ${url.protocol} address (only https and http)`);
  }
  // Credentials travel in headers only (machine-api.md); a URL never carries one.
  if (url.username !== '' || url.password !== '') {
    throw invalidDownloadUrl(`an address with credentials in it (${url.protocol}//${url.host})`);
  }
  return url;
}

// SEC-01 for every redirect: https, or plain http to loopback only; never credentials.
function checkedRedirect(file: string, url: URL): URL {
  if (url.username !== '' || url.password !== '') {
    throw badRedirect(file, `redirected to an address with credentials (${url.host})`);
  }
  const plainLoopback = url.protocol === 'http:' && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !plainLoopback) {
    throw badRedirect(file, `redirected to ${url.protocol}//${url.host}, which is not https`);
  }
  return url;
}

function viaText(dispatcher: Dispatcher, url: URL): string {
  const describe = (dispatcher as { describeRoute?: (url: URL) => string }).describeRoute;
  if (typeof describe !== 'function') return '';
  const line = describe.call(dispatcher, url);
  return line.startsWith('via ') ? ` (${line})` : '';
}

// Drops an answer we will not read; undici reports a destroyed body as an error otherwise.
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}
