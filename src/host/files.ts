// File operations of the Host. Writes are atomic (temp file, fsync, rename, fsync of the
// directory) and created with their final mode from the start, never following a symlink at the
// final component (SEC-02, docs/design.md "Records").
import { createHash, randomBytes } from 'node:crypto';
import { constants, createReadStream, type Stats } from 'node:fs';
import {
  access,
  chmod,
  lstat,
  mkdir,
  open,
  readFile,
  rename,
  rm,
  stat,
  type FileHandle,
} from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { oacError } from '../messages.ts';

export async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
}

/** lstat that answers undefined for a missing path; never follows the last symlink. */
export async function lstatIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
}

export async function writeFileAtomic(
  path: string,
  data: string | Buffer,
  mode: number,
): Promise<void> {
  await writeAtomicWith(path, mode, (handle) => handle.writeFile(data));
}

/** A temp file beside `path` (exclusive, never through a link, with `mode`), filled by `fill`,
 *  synced, then renamed over `path` and the rename synced. */
async function writeAtomicWith<T>(
  path: string,
  mode: number,
  fill: (handle: FileHandle) => Promise<T>,
): Promise<T> {
  const temp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const flags = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;
  const handle = await open(temp, flags, mode);
  const discard = async (error: unknown): Promise<never> => {
    // Whatever failed (the fill, the sync, the close, the rename: a directory in the way, a full
    // or read-only file system), no temp file of root's is left, and the first error is told.
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  };
  let result: T;
  try {
    result = await fill(handle);
    await handle.chmod(mode); // the umask must not weaken or widen the mode we chose
    await handle.sync();
    await handle.close();
    await rename(temp, path);
  } catch (error) {
    return discard(error);
  }
  await syncDirectory(dirname(path));
  return result;
}

/** fsync of a directory: makes a rename in it durable. */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `mkdir -p`, one level at a time: Node's own recursive mkdir says ENOENT where the file system
 *  is read-only (REL-01: the operator must read "read-only", not "no such file"). A directory
 *  made meanwhile by someone else is fine, as it is for mkdir -p. */
async function makeDirectories(path: string, mode: number, parents = true): Promise<void> {
  try {
    await mkdir(path, { mode });
  } catch (error) {
    if (isCode(error, 'EEXIST') && (await lstatIfExists(path))?.isDirectory() === true) return;
    // A file where a directory of ours belongs, here or above: one line naming it, not ENOTDIR.
    if (isCode(error, 'ENOTDIR') || isCode(error, 'EEXIST'))
      throw oacError('not_a_directory', { path: await firstNotDirectory(path) });
    if (!parents || !isCode(error, 'ENOENT') || dirname(path) === path) throw error;
    await makeDirectories(dirname(path), mode);
    await makeDirectories(path, mode, false);
  }
}

/** The path itself, or the nearest of its ancestors, that is there and is no directory. */
async function firstNotDirectory(path: string): Promise<string> {
  const found = await lstatIfExists(path).catch(() => undefined);
  if (found !== undefined && !found.isDirectory()) return path;
  return dirname(path) === path ? path : firstNotDirectory(dirname(path));
}

/** Creates a directory (and parents) with `mode`; an existing symlink in its place is refused. */
export async function ensureDirectory(path: string, mode: number): Promise<'created' | 'exists'> {
  const found = await lstatIfExists(path);
  if (found !== undefined) {
    if (!found.isDirectory()) throw oacError('not_a_directory', { path });
    return 'exists';
  }
  await makeDirectories(path, mode);
  // The umask must not narrow the mode: the one-line command runs under umask 077, and a
  // program directory of 0700 kept the service (User=oac-node) from executing its program.
  await chmod(path, mode);
  return 'created';
}

/** Whether this process can open `path` for reading and writing (the /dev/kvm check). */
export async function canOpenReadWrite(path: string): Promise<boolean> {
  try {
    const handle = await open(path, constants.O_RDWR | constants.O_NOFOLLOW);
    await handle.close();
    return true;
  } catch {
    return false;
  }
}

export async function sha256File(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    return await hashHandle(handle);
  } finally {
    await handle.close();
  }
}

/** 1 MiB reads into one buffer: about 2.5x faster here than a 64 KiB read stream (#13). */
const HASH_READ_BYTES = 1024 * 1024;

/** SHA-256 of an open file from its start; `onPiece` sees each piece as it is hashed (a copy
 *  writes it on). The piece's buffer is reused: use it before the promise resolves. */
export async function hashHandle(
  handle: FileHandle,
  onPiece?: (piece: Buffer) => Promise<void>,
): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(HASH_READ_BYTES);
  for (let position = 0; ;) {
    const { bytesRead } = await handle.read(buffer, 0, HASH_READ_BYTES, position);
    if (bytesRead === 0) return hash.digest('hex');
    const piece = bytesRead === HASH_READ_BYTES ? buffer : buffer.subarray(0, bytesRead);
    hash.update(piece);
    await onPiece?.(piece);
    position += bytesRead;
  }
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** The path is not there: missing, or under something that is no directory (ENOTDIR), which a
 *  probe must take for absent (the plan refuses the non-directory at its own step, issue #23). */
export function isAbsent(error: unknown): boolean {
  return isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR');
}

/** The file's SHA-256, or undefined when it does not exist. */
export async function sha256FileIfExists(path: string): Promise<string | undefined> {
  try {
    return await sha256File(path);
  } catch (error) {
    if (isAbsent(error) || isCode(error, 'EISDIR')) return undefined;
    throw error;
  }
}

export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** A stream of a file's bytes (for uploads such as `docker load`), in pieces of `pieceBytes`
 *  (Node's 64 KiB by default). */
export function readStream(path: string, pieceBytes?: number): Readable {
  return createReadStream(path, pieceBytes === undefined ? {} : { highWaterMark: pieceBytes });
}

/** Copies `from` to `to` atomically, with `mode`, whatever `to` was. */
/** Copies in 1 MiB pieces (an 84 MiB program is never held whole in memory, issue #13) and
 *  returns the SHA-256 of the bytes written (the source may have changed since it was hashed). */
export async function copyFileAtomic(
  from: string,
  to: string,
  mode: number,
  /** Issue #27.6: what the copy must hash to; anything else is removed before the rename. */
  expected?: (actual: string) => void,
): Promise<string> {
  const source = await open(from, 'r');
  try {
    return await writeAtomicWith(to, mode, async (target) => {
      const actual = await hashHandle(source, async (piece) => {
        for (let done = 0; done < piece.length;)
          done += (await target.write(piece, done, piece.length - done)).bytesWritten;
      });
      expected?.(actual);
      return actual;
    });
  } finally {
    await source.close();
  }
}

export async function removeFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

/** Sets a file's permission bits (the microsandbox helper: executable after its check). */
export async function setMode(path: string, mode: number): Promise<void> {
  await chmod(path, mode);
}

/** Whether this process can create and delete a file in `dir` (a checkpoint store). */
export async function canWriteDirectory(dir: string): Promise<boolean> {
  try {
    await access(dir, constants.W_OK | constants.X_OK);
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** Renames within one file system (atomic: a reader sees the old file or the new one). */
export async function renameFile(from: string, to: string): Promise<void> {
  await rename(from, to);
}
