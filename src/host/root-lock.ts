// The installer's host-wide lock (SEC-05, SEC-06): a file in a directory only root can write,
// opened without following links, locked with flock(2) through flock(1).
//
// Why flock: the kernel drops the lock when the last descriptor of its open file description
// closes, so a holder killed with SIGKILL leaves nothing to clean up and nothing to go stale, and
// an unprivileged user cannot fake, age or remove a lock in a directory they cannot write.
// Node has no flock(2); `flock -w N 3` run with our descriptor as its fd 3 locks our open file
// description and exits, and the lock stays with our descriptor (the kernel ties it to the
// description, not to the process that asked). Node opens files close-on-exec, so no other
// child of ours inherits it.
import { spawn } from 'node:child_process';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isCode } from './files.ts';
import { LockHeldError, processIdentity, type Release } from './lock.ts';
import { oacError } from '../messages.ts';

/** Why a lock's directory or file was refused: something we did not make is in the way. */
export class UnsafeLockError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} ${reason}`);
    this.name = 'UnsafeLockError';
  }
}

// flock(1)'s exit status when the wait ran out (-E), apart from its own errors (1).
const BUSY = 75;

/** Takes the lock at `path` (its directory is made 0700 if missing), waiting up to `waitMs`. */
export async function lockRootFile(path: string, options: { waitMs: number }): Promise<Release> {
  await ensurePrivateDirectory(dirname(path));
  const handle = await openLockFile(path);
  try {
    await flock(handle, path, Math.max(0, options.waitMs));
    await recordHolder(handle);
  } catch (error) {
    const holder = error instanceof LockHeldError ? await holderOf(handle) : undefined;
    await handle.close();
    if (error instanceof LockHeldError) throw new LockHeldError(path, holder);
    throw error;
  }
  // Never unlinked: a waiter holds a descriptor to this very file, and a new file under the
  // same name would let a third process take a second, separate lock.
  return async () => {
    await handle.truncate(0).catch(() => undefined);
    await handle.close();
  };
}

/** The lock's directory: created 0700 without following links, or an existing one that is a
 *  real directory of ours that nobody else can write. */
async function ensurePrivateDirectory(dir: string): Promise<void> {
  await mkdir(dirname(dir), { recursive: true });
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if (!isCode(error, 'EEXIST')) throw error;
  }
  refuseUnless(dir, await lstat(dir), (st) => st.isDirectory(), 'is not a directory');
}

async function openLockFile(path: string): Promise<FileHandle> {
  const flags = constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW;
  let handle: FileHandle;
  try {
    handle = await open(path, flags, 0o600);
  } catch (error) {
    if (isCode(error, 'ELOOP')) throw new UnsafeLockError(path, 'is a symbolic link');
    throw error;
  }
  try {
    const st = await handle.stat();
    refuseUnless(path, st, (s) => s.isFile() && s.nlink === 1, 'is not a plain file');
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

function refuseUnless(path: string, st: Stats, ok: (st: Stats) => boolean, reason: string): void {
  if (!ok(st)) throw new UnsafeLockError(path, reason);
  if (st.uid !== process.geteuid?.()) throw new UnsafeLockError(path, 'belongs to another user');
  if ((st.mode & 0o022) !== 0) throw new UnsafeLockError(path, 'is writable by others');
}

function flock(handle: FileHandle, lockPath: string, waitMs: number): Promise<void> {
  const wait = waitMs === 0 ? ['-n'] : ['-w', String(waitMs / 1000)];
  const child = spawn('flock', ['-x', ...wait, '-E', String(BUSY), '3'], {
    stdio: ['ignore', 'ignore', 'pipe', handle.fd],
    env: { PATH: '/usr/bin:/bin' },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        oacError('lock_failed', {
          path: lockPath,
          reason: `cannot run (${error.code ?? 'error'})`,
        }),
      ),
    );
    child.once('close', (status) => {
      if (status === 0) resolve();
      else if (status === BUSY) reject(new LockHeldError(''));
      else {
        const reason = `exit status ${status}${stderr.trim() === '' ? '' : `: ${stderr.trim()}`}`;
        reject(oacError('lock_failed', { path: lockPath, reason: reason.slice(0, 300) }));
      }
    });
  });
}

/** `pid starttime` of the holder, for the busy message only: the kernel decides who holds it. */
async function recordHolder(handle: FileHandle): Promise<void> {
  const holder = processIdentity(process.pid);
  await handle.truncate(0);
  if (holder !== undefined) await handle.write(`${holder}\n`, 0);
}

/** The PID of a live holder, or undefined when the record is missing or names a process that
 *  has gone (or a reused PID: the start time differs). */
async function holderOf(handle: FileHandle): Promise<number | undefined> {
  const buffer = Buffer.alloc(64);
  const { bytesRead } = await handle.read(buffer, 0, 64, 0).catch(() => ({ bytesRead: 0 }));
  const recorded = buffer.subarray(0, bytesRead).toString('utf8').trim();
  const pid = Number(recorded.split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return processIdentity(pid) === recorded ? pid : undefined;
}
