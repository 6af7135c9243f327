// Process bookkeeping for the e2e harness: a PID is recorded with its start time, so a stale
// record never leads to signalling a process the kernel has since given the same PID.
import { readFileSync } from 'node:fs';

export interface ProcessId {
  pid: number;
  /** Field 22 of /proc/PID/stat (clock ticks since boot). */
  start: string;
}

export interface ProcessStat {
  comm: string;
  /** R, S, D, Z (a zombie: dead, not yet reaped), … */
  state: string;
  ppid: number;
  start: string;
}

export function processStat(pid: number): ProcessStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const rest = stat
    .slice(close + 2)
    .trim()
    .split(' ');
  // rest[0] is field 3 (state): the parent is field 4, the start time field 22.
  const ppid = Number(rest[1]);
  const start = rest[19];
  if (start === undefined || !Number.isInteger(ppid)) return undefined;
  return { comm: stat.slice(open + 1, close), state: rest[0] ?? '', ppid, start };
}

export function processId(pid: number): ProcessId | undefined {
  const stat = processStat(pid);
  return stat === undefined ? undefined : { pid, start: stat.start };
}

/** True when the process recorded as `id` is still the one running under that PID. */
export function isAlive(id: ProcessId | undefined): boolean {
  if (id === undefined || !(id.pid > 1)) return false;
  const stat = processStat(id.pid);
  return stat !== undefined && stat.state !== 'Z' && stat.start === id.start;
}

export function formatProcessId(id: ProcessId): string {
  return `${id.pid} ${id.start}\n`;
}

export function parseProcessId(text: string): ProcessId | undefined {
  const match = /^(\d+) (\d+)\s*$/.exec(text);
  if (match === null) return undefined;
  return { pid: Number(match[1]), start: match[2] as string };
}

/** SIGKILL the process recorded as `id`, only if it is still that process. */
export function killRecorded(id: ProcessId | undefined): void {
  if (id === undefined || !isAlive(id)) return;
  try {
    process.kill(id.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The direct children of `pid`, from /proc/PID/task/PID/children (or a scan of /proc). */
export function childrenOf(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return text === '' ? [] : text.split(' ').map(Number);
  } catch {
    return [];
  }
}

/** Blocks the thread for `ms` (for the synchronous exit handler only). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export const delay = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));
