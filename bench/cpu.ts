// How busy the machine's CPUs were while a bench measured something (issue #41: a target that
// is not met is shown with what limits it). Read from /proc: the whole machine's time from
// /proc/stat, one process's own from /proc/PID/stat. Linux only, as the product is.
import { readFileSync } from 'node:fs';

/** The CPUs /proc/stat counts (its `cpuN` lines): the machine's, whatever this process may run on. */
export function machineCpus(): number {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line)).length;
}

/** /proc/stat's first line: every CPU's time, busy and all, in clock ticks. */
interface MachineTicks {
  busy: number;
  all: number;
}

function machineTicks(): MachineTicks {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest is in user)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number) as number[];
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0);
  return { busy, all: busy + (idle ?? 0) + (iowait ?? 0) + (steal ?? 0) };
}

/** A process's user + system time in clock ticks (fields 14 and 15 of /proc/PID/stat, counted
 *  after the command name, which may hold spaces and parentheses). */
function processTicks(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Linux's USER_HZ: what /proc counts process times in (100 on every Linux this runs on). The
 *  machine-wide figure needs none: it is a ratio of /proc/stat's own counts. */
const USER_HZ = 100;

export interface CpuUse {
  /** CPUs busy on average over the span (of `cores`), every process and the kernel. */
  busyCores: number;
  cores: number;
  /** CPU seconds the watched process (the sender) used in the span. */
  watchedSeconds: number;
}

/** Starts counting; the returned function stops and says how busy the CPUs were since. */
export function cpuUseSince(watchedPid: number): () => CpuUse {
  const cores = machineCpus();
  const machine = machineTicks();
  const watched = processTicks(watchedPid);
  return () => {
    const now = machineTicks();
    const all = now.all - machine.all;
    return {
      busyCores: all === 0 ? 0 : ((now.busy - machine.busy) / all) * cores,
      cores,
      watchedSeconds: (processTicks(watchedPid) - watched) / USER_HZ,
    };
  };
}
