// A child whose stdout is read line by line while it runs (OPS-01): the node half's `_prepare`
// prints its events as NDJSON, and the installer renders each as it arrives instead of after
// the child exits. The child gets its own session and process group (HOST-08: no terminal), so
// a terminal's signals never reach it: on `signal` the installer stops the whole group itself
// (OPS-03), first with SIGTERM (the child stops at a step boundary), then, if it is still there
// after `graceMs`, with SIGKILL. No wall-clock limit (OPS-02): only the child's own rules end
// its work.
import { spawn } from 'node:child_process';

export interface LineChildOptions {
  input: string;
  env: Record<string, string>;
  onLine: (line: string) => void;
  signal?: AbortSignal;
  /** How long the group may take to stop after SIGTERM before it is killed. */
  graceMs?: number;
}

export interface LineChildResult {
  exitCode: number;
  /** The child's stderr, its first 64 KiB. */
  stderr: string;
}

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** A line longer than this is no event of ours: it is dropped, not buffered (SEC-04). */
const MAX_LINE_BYTES = 64 * 1024;
const MAX_STDERR_BYTES = 64 * 1024;

export function runWithLines(
  command: string,
  args: string[],
  options: LineChildOptions,
): Promise<LineChildResult> {
  const child = spawn(command, args, {
    cwd: '/',
    env: { PATH, LANG: 'C', ...options.env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = lineSplitter(options.onLine);
  child.stdout.on('data', (chunk: Buffer) => lines.push(chunk));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    if (stderr.length < MAX_STDERR_BYTES) stderr += text.slice(0, MAX_STDERR_BYTES - stderr.length);
  });
  // The child may exit before reading its request: a closed pipe is its answer, not ours.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input);
  const stop = groupStopper(child.pid, options.graceMs ?? 30_000);
  options.signal?.addEventListener('abort', stop.start, { once: true });
  if (options.signal?.aborted === true) stop.start();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      options.signal?.removeEventListener('abort', stop.start);
      stop.cancel();
      lines.end();
      resolve({ exitCode: code ?? (signal === null ? 1 : 128), stderr });
    });
  });
}

/** SIGTERM to the group now, SIGKILL after the grace period; a second abort is not needed. */
function groupStopper(pid: number | undefined, graceMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const kill = (signal: NodeJS.Signals) => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  return {
    start: () => {
      kill('SIGTERM');
      timer ??= setTimeout(() => kill('SIGKILL'), graceMs);
    },
    /** The stopped child may have left processes in its group: they go with it. */
    cancel: () => {
      if (timer !== undefined) kill('SIGKILL');
      clearTimeout(timer);
    },
  };
}

/** Splits a byte stream into UTF-8 lines without holding more than one bounded line. */
function lineSplitter(onLine: (line: string) => void) {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false;
  const flush = () => {
    if (!overlong && pendingBytes > 0) onLine(Buffer.concat(pending).toString('utf8'));
    pending = [];
    pendingBytes = 0;
    overlong = false;
  };
  return {
    push(chunk: Buffer) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        append(chunk.subarray(start, nl));
        flush();
        start = nl + 1;
      }
      append(chunk.subarray(start));
    },
    end: flush,
  };
  function append(part: Buffer) {
    if (overlong || part.length === 0) return;
    pendingBytes += part.length;
    if (pendingBytes > MAX_LINE_BYTES) {
      overlong = true;
      pending = [];
      return;
    }
    pending.push(part);
  }
}
