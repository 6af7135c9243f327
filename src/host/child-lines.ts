// A child whose stdout is read line by line while it runs (OPS-01): the node half's `_prepare`
// prints its events as NDJSON, and the installer renders each as it arrives instead of after
// the child exits. The child gets its own session and process group (HOST-08: no terminal), so
// a terminal's signals never reach it: on `signal` the installer stops the whole group itself
// (OPS-03), first with SIGTERM (the child stops at a step boundary), then, if it is still there
// after `graceMs`, with SIGKILL. No wall-clock limit (OPS-02): only the child's own rules end
// its work.
import { TOOL_PATH } from './tool-path.ts';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { constants } from 'node:os';

export interface LineChildOptions {
  input: string;
  env: Record<string, string>;
  /** Open descriptors the child gets as fd 3, 4, … (the bundle, OFFLINE-01). */
  fds?: number[];
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

const PATH = TOOL_PATH;
/** A line longer than this is no event of ours: it is dropped, not buffered (SEC-04). */
const MAX_LINE_BYTES = 64 * 1024;
const MAX_STDERR_BYTES = 64 * 1024;

/** The process groups of children still running: a run that must end at once (a second
 *  Ctrl-C) kills them first, since their own session never sees the terminal's signal. */
const liveGroups = new Set<number>();

/** SIGKILL to every child group still running; synchronous, for a process about to exit. */
export function killChildGroups(): void {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
}

export function runWithLines(
  command: string,
  args: string[],
  options: LineChildOptions,
): Promise<LineChildResult> {
  // Interrupted already: the child (and the token it would read) never starts.
  if (options.signal?.aborted === true)
    return Promise.resolve({ exitCode: 130, stderr: 'interrupted before it started' });
  const child = spawn(command, args, {
    cwd: '/',
    env: { PATH, LANG: 'C', ...options.env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', ...(options.fds ?? [])],
  }) as ChildProcessWithoutNullStreams;
  const pgid = child.pid;
  if (pgid !== undefined) liveGroups.add(pgid);
  const lines = lineSplitter(options.onLine);
  child.stdout.on('data', (chunk: Buffer) => lines.push(chunk));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    if (stderr.length < MAX_STDERR_BYTES) stderr += text.slice(0, MAX_STDERR_BYTES - stderr.length);
  });
  // The child may exit before reading its request: a closed pipe is its answer, not ours.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input);
  let escalation: NodeJS.Timeout | undefined;
  const stop = () => {
    if (pgid === undefined || escalation !== undefined) return;
    killGroup(pgid, 'SIGTERM');
    escalation = setTimeout(() => killGroup(pgid, 'SIGKILL'), options.graceMs ?? 30_000);
    escalation.unref();
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  const settle = () => {
    options.signal?.removeEventListener('abort', stop);
    clearTimeout(escalation);
    if (pgid !== undefined) liveGroups.delete(pgid);
  };
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      settle();
      reject(error);
    });
    child.once('close', (code, signal) => {
      settle();
      lines.end();
      const bySignal = signal === null ? 1 : 128 + (constants.signals[signal] ?? 0);
      resolve({ exitCode: code ?? bySignal, stderr });
    });
  });
}

/** Signals a whole group; one that is gone already is no error. Never called after the
 *  group's leader was reaped (its number could be another group's by then). */
function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is gone already.
  }
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
