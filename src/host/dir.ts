import { readdir as readdirFs } from 'node:fs/promises';
import { isCode } from './files.ts';
import type { Host } from './host.ts';

/** The names in a host directory; none when it does not exist. */
export async function readdir(host: Host, hostPath: string): Promise<string[]> {
  try {
    return (await readdirFs(host.path(hostPath))).sort();
  } catch (error) {
    if (isCode(error, 'ENOENT')) return [];
    throw error;
  }
}

/** The names in a directory of this process's own (the node's state); none when absent. */
export async function listDirectory(path: string): Promise<string[]> {
  try {
    return (await readdirFs(path)).sort();
  } catch (error) {
    if (isCode(error, 'ENOENT')) return [];
    throw error;
  }
}
