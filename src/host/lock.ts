// Exclusive locks on directories (NODE-03: one process per state directory; SEC-05: one
// installer per host). proper-lockfile keeps a `.lock` directory inside the locked directory
// fresh while we hold it, so a lock left by a killed process goes stale and is taken over
// instead of blocking forever. Inside, not beside: the parent may not be ours to write.
import lockfile from 'proper-lockfile';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isCode } from './files.ts';

export type Release = () => Promise<void>;

export interface LockOptions {
  /** How long to wait for a held lock before giving up; 0 fails at once. */
  waitMs: number;
  /** Called if the lock is lost while held (e.g. its directory was removed). */
  onLost?: (error: Error) => void;
}

export class LockHeldError extends Error {
  constructor(readonly path: string) {
    super(`${path} is locked by another process`);
    this.name = 'LockHeldError';
  }
}

export function lockDirectory(path: string, options: LockOptions): Promise<Release> {
  return lockAt(path, join(path, '.lock'), options);
}

/** A lock named by a path of its own (the installer's, under /run/lock), not a directory's. */
export async function lockFile(path: string, options: LockOptions): Promise<Release> {
  await mkdir(dirname(path), { recursive: true });
  return lockAt(path, `${path}.lock`, options);
}

async function lockAt(path: string, lockfilePath: string, options: LockOptions): Promise<Release> {
  const retries =
    options.waitMs <= 0
      ? 0
      : { retries: Math.ceil(options.waitMs / 250), minTimeout: 250, maxTimeout: 250, factor: 1 };
  try {
    return await lockfile.lock(path, {
      stale: 10_000,
      update: 2_000,
      retries,
      realpath: false,
      lockfilePath,
      onCompromised: (error) => options.onLost?.(error),
    });
  } catch (error) {
    if (isCode(error, 'ELOCKED')) throw new LockHeldError(path);
    throw error;
  }
}
