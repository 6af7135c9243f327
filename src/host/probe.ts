// Read-only facts about the machine for preflight (PRE-*): nothing here changes anything.
import { statfs } from 'node:fs/promises';
import { availableParallelism, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { lstatIfExists } from './files.ts';
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
  let stats = await lstatIfExists(at);
  while (stats === undefined && at !== dirname(at)) {
    at = dirname(at);
    stats = await lstatIfExists(at);
  }
  const fs = await statfs(at);
  return { device: stats?.dev ?? -1, free: fs.bavail * fs.bsize };
}

/** Free bytes on the filesystem that holds `hostPath` (or its nearest existing ancestor). */
export async function freeBytes(host: Host, hostPath: string): Promise<number> {
  return (await fileSystemOf(host.path(hostPath))).free;
}

export function hostCapacity(): { cpus: number; memoryBytes: number } {
  return { cpus: availableParallelism(), memoryBytes: totalmem() };
}
