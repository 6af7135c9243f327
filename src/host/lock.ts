// Exclusive locks on the node's state directory (NODE-03: one process per state directory; the
// installer's host-wide lock is src/host/root-lock.ts). proper-lockfile keeps a `.lock`
// directory inside the locked directory fresh while we hold it, so a lock left by a killed process goes stale and is taken over
// instead of blocking forever. Inside, not beside: the parent may not be ours to write.
import lockfile from 'proper-lockfile';
import { readFileSync } from 'node:fs';
import { readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isCode } from './files.ts';

export type Release = () => Promise<void>;

export interface LockOptions {
  /** How long to wait for a held lock before giving up; 0 fails at once. */
  waitMs: number;
  /** Called if the lock is lost while held (e.g. its directory was removed). */
  onLost?: (error: Error) => void;
}

export class LockHeldError extends Error {
  constructor(
    readonly path: string,
    /** The live holder's PID, when it is known. */
    readonly holder?: number,
  ) {
    super(`${path} is locked by another process`);
    this.name = 'LockHeldError';
  }
}

export function lockDirectory(path: string, options: LockOptions): Promise<Release> {
  return lockAt(path, join(path, '.lock'), options);
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
      await writeFile(ownerPath, processIdentity(process.pid) ?? '', { mode: 0o600 }).catch(
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
export function processIdentity(pid: number): string | undefined {
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
  return processIdentity(pid) !== recorded;
}
