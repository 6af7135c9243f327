// The checks both providers share (PRE-06, PRE-07, PRE-09): each failure is one line from the
// messages table, thrown before anything on the host changes.
import { OacError } from '../src/errors.ts';
import { freeBytes } from '../src/host/probe.ts';
import { hint, message, type MessageCode } from '../src/messages.ts';
import { NODE_HOME } from '../src/layout.ts';
import type { InstallContext } from './context.ts';

export const MIB = 1024 * 1024;

export function fail(code: MessageCode, values: Record<string, string | number> = {}): never {
  throw new OacError(code, message(code, values), { hint: hint(code) });
}

export interface SandboxNeed {
  cpus: number;
  memoryMib: number;
}

/** PRE-06: one sandbox of the configured size fits. */
export function checkCapacity(cpus: number, memoryBytes: number, need: SandboxNeed): void {
  const memory = Math.floor(memoryBytes / MIB);
  if (cpus < need.cpus || memory < need.memoryMib) {
    fail('host_too_small', { cpus, memory, need_cpus: need.cpus, need_memory: need.memoryMib });
  }
}

/** PRE-07: the downloads plus what they unpack to, before anything is downloaded. */
export async function checkDisk(ctx: InstallContext, needBytes: number): Promise<void> {
  const free = await freeBytes(ctx.host, NODE_HOME);
  if (free < needBytes)
    fail('disk_too_small', {
      free: Math.floor(free / MIB),
      path: NODE_HOME,
      need: Math.ceil(needBytes / MIB),
    });
}
