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

/** Free bytes on the filesystem that holds `hostPath` (or its nearest existing ancestor). */
export async function freeBytes(host: Host, hostPath: string): Promise<number> {
  let path = host.path(hostPath);
  while ((await lstatIfExists(path)) === undefined && path !== dirname(path)) path = dirname(path);
  const stats = await statfs(path);
  return stats.bavail * stats.bsize;
}

export function hostCapacity(): { cpus: number; memoryBytes: number } {
  return { cpus: availableParallelism(), memoryBytes: totalmem() };
}
