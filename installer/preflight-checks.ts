// The checks both providers share (PRE-06, PRE-07, PRE-09): each failure is one line from the
// messages table, thrown before anything on the host changes.
import { fileSystemOf } from '../src/host/probe.ts';
import { oacError, type MessageCode } from '../src/messages.ts';

export const MIB = 1024 * 1024;

export function fail(code: MessageCode, values: Record<string, string | number> = {}): never {
  throw oacError(code, values);
}

/** HOST-12: the oldest Docker Engine the node is tested with (Debian 11's docker.io, 20.10.5):
 *  the API calls and `docker info` fields it relies on are all there from 20.10 on. */
export const DOCKER_MINIMUM = '20.10';

/** HOST-12: refuses a Docker older than DOCKER_MINIMUM. Only the numbers are shown (the daemon
 *  wrote the rest); a daemon that names no version of this form is not judged by it. */
export function checkDockerVersion(serverVersion: string | undefined): void {
  const match = /^(\d{1,4})\.(\d{1,4})(?:\.(\d{1,4}))?/.exec(serverVersion ?? '');
  if (match === null) return;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  const [minMajor, minMinor] = DOCKER_MINIMUM.split('.').map(Number) as [number, number];
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return;
  fail('docker_too_old', { version: match[0], minimum: DOCKER_MINIMUM });
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

/** What a download needs where: `path` is a path on this machine (Docker's storage is the
 *  daemon's own, never under --root), `bytes` what lands there. */
export interface DiskNeed {
  path: string;
  /** The path as the operator knows it (a host path, --root aside). */
  label: string;
  bytes: number;
  /** Whose space it is, for the message: the node's files or Docker's images. */
  for: 'node' | 'docker';
}

/** PRE-07: the downloads plus what they unpack to, before anything is downloaded. Needs on one
 *  file system add up (the archive and Docker's layers often share the root file system); each
 *  file system is checked against its own sum. */
export async function checkDisk(needs: DiskNeed[]): Promise<void> {
  const byDevice = new Map<number, { free: number; needs: DiskNeed[] }>();
  for (const need of needs.filter((n) => n.bytes > 0)) {
    const fs = await fileSystemOf(need.path);
    const entry = byDevice.get(fs.device) ?? { free: fs.free, needs: [] };
    entry.needs.push(need);
    byDevice.set(fs.device, entry);
  }
  for (const { free, needs: here } of byDevice.values()) {
    const bytes = here.reduce((sum, n) => sum + n.bytes, 0);
    if (free >= bytes) continue;
    const first = here.find((n) => n.for === 'node') ?? here[0];
    const values = {
      free: Math.floor(free / MIB),
      path: first?.label ?? '',
      need: Math.ceil(bytes / MIB),
    };
    fail(first?.for === 'docker' ? 'docker_disk_too_small' : 'disk_too_small', values);
  }
}
