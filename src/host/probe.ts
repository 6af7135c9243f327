// Read-only facts about the machine for preflight (PRE-*): nothing here changes anything.
import { stat, statfs } from 'node:fs/promises';
import { availableParallelism, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { Host } from './host.ts';

export async function selinuxEnforcing(host: Host): Promise<boolean> {
  const raw = await host.readFile('/sys/fs/selinux/enforce').catch(() => undefined);
  return raw?.toString('utf8').trim() === '1';
}

/** The file system that holds `path` (a path on this machine, or its nearest existing
 *  ancestor): its device, to tell two paths on one file system apart from two file systems,
 *  and its free bytes. */
export async function fileSystemOf(path: string): Promise<{ device: number; free: number }> {
  let at = path;
  // Followed, as statfs follows it: a data root moved to another disk by a link is that disk.
  let stats = await stat(at).catch(() => undefined);
  while (stats === undefined && at !== dirname(at)) {
    at = dirname(at);
    stats = await stat(at).catch(() => undefined);
  }
  const fs = await statfs(at);
  return { device: stats?.dev ?? -1, free: fs.bavail * fs.bsize };
}

export function hostCapacity(): { cpus: number; memoryBytes: number } {
  return { cpus: availableParallelism(), memoryBytes: totalmem() };
}
