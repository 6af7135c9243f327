// One command run to its end with its output collected: the Host's `run` (src/host/host.ts), on
// node:child_process itself. Issue #41: execa cost root about 20 ms to load at its first command
// and about 6 ms of CPU for each command after (its stdio and stream machinery), while root's
// probes run beside the node half on the same cores (bench/README.md). This keeps what the Host
// asked of execa: no shell, its own environment only, `/` as the working directory, standard
// input given and closed, output as UTF-8 with one final newline stripped, a failure to start
// as exit status 1 (no exception), and a time limit (SIGTERM, then SIGKILL 5 s later).
import { spawn } from 'node:child_process';

export interface ProcessOptions {
  input: string;
  env: Record<string, string>;
  uid?: number;
  gid?: number;
  /** Its own session and process group, without a terminal. */
  detached: boolean;
  timeoutMs: number;
}

export interface ProcessResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const KILL_AFTER_MS = 5_000;

export function runProcess(
  command: string,
  args: string[],
  options: ProcessOptions,
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let settled = false;
    const finish = (exitCode: number) => {
      if (settled) return;
      settled = true;
      clearTimeout(term);
      clearTimeout(kill);
      resolve({ exitCode, stdout: text(stdout), stderr: text(stderr) });
    };
    const child = spawn(command, args, {
      cwd: '/',
      env: options.env,
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
      detached: options.detached,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let kill: NodeJS.Timeout | undefined;
    let stopped = false;
    const term = setTimeout(() => {
      stopped = true;
      child.kill('SIGTERM');
      kill = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A command that exits without reading its input: the closed pipe is its answer.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
    // Not started (no such command, no permission): a failure of its own, never a throw.
    child.once('error', () => finish(1));
    child.once('close', (code) => finish(typeof code === 'number' ? code : 1));
    // Stopped for its time limit: it is over when it exits, though a child of its own may still
    // hold its output open.
    child.once('exit', (code) => {
      if (!stopped) return;
      child.stdout.destroy();
      child.stderr.destroy();
      finish(typeof code === 'number' ? code : 1);
    });
  });
}

/** The output as text, one final newline (LF or CRLF) stripped, as execa's default does. */
function text(chunks: Buffer[]): string {
  const all = Buffer.concat(chunks).toString('utf8');
  if (all.endsWith('\r\n')) return all.slice(0, -2);
  return all.endsWith('\n') ? all.slice(0, -1) : all;
}
