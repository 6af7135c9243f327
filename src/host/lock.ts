// Exclusive locks on directories (NODE-03: one process per state directory; SEC-05: one
// installer per host). proper-lockfile keeps a `.lock` directory inside the locked directory
// fresh while we hold it, so a lock left by a killed process goes stale and is taken over
// instead of blocking forever. Inside, not beside: the parent may not be ours to write.
import lockfile from 'proper-lockfile';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
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
  const ownerPath = `${lockfilePath}.owner`;
  const deadline = Date.now() + Math.max(0, options.waitMs);
  for (;;) {
    try {
      const release = await lockfile.lock(path, {
        stale: 10_000,
        update: 2_000,
        retries: 0,
        realpath: false,
        lockfilePath,
        onCompromised: (error) => options.onLost?.(error),
      });
      await writeFile(ownerPath, ownerOf(process.pid) ?? '', { mode: 0o600 }).catch(
        () => undefined,
      );
      return async () => {
        await rm(ownerPath, { force: true });
        await release();
      };
    } catch (error) {
      if (!isCode(error, 'ELOCKED')) throw error;
      // A holder killed with SIGKILL cannot release; rather than wait the 10 s until its lock
      // goes stale, age it at once when its recorded process is gone, and let proper-lockfile
      // take it over by its own stale rule.
      if (await holderIsGone(ownerPath)) await utimes(lockfilePath, 0, 0).catch(() => undefined);
      else if (Date.now() >= deadline) throw new LockHeldError(path);
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** `pid starttime`: the start time (clock ticks since boot, /proc/PID/stat field 22) tells a
 *  reused PID from the holder. */
function ownerOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return `${pid} ${fields[19] ?? ''}`;
  } catch {
    return undefined;
  }
}

async function holderIsGone(ownerPath: string): Promise<boolean> {
  const recorded = (await readFile(ownerPath, 'utf8').catch(() => '')).trim();
  const pid = Number(recorded.split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false; // unknown holder: wait for staleness
  return ownerOf(pid) !== recorded;
}
