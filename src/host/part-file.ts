// The file side of downloads (src/net/download.ts streams into this; only src/host touches
// node:fs). A download writes `<dest>.part` beside its target, created 0600 without following
// links (SEC-02), keeps it when interrupted (DL-02), and renames it over `dest` only after the
// caller verified size and SHA-256: fsync, rename, fsync of the directory, so a crash leaves
// either the old file or the whole new one.
import { createHash, type Hash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from './files.ts';

const PART_MODE = 0o600;
const READ_CHUNK = 1024 * 1024;
// Start writing back every 64 MiB while the download goes on, so the final fsync of a 1 GiB file
// does not wait for the whole file at once.
const WRITEBACK_EVERY = 64 * 1024 * 1024;

export function partPathOf(dest: string): string {
  return `${dest}.part`;
}

export interface PartFile {
  readonly path: string;
  /** Bytes in the file: where the next append lands, and the offset a resume asks for. */
  readonly size: number;
  /** A SHA-256 already fed with the bytes in the file: a resume hashes from disk first. */
  hashExisting(): Promise<Hash>;
  /** Empties the file: a restart from zero. */
  truncate(): Promise<void>;
  /** Appends the chunks, in order. */
  append(chunks: readonly Buffer[]): Promise<void>;
  /** Keeps what arrived for a later resume: data to disk, then closed. */
  keep(): Promise<void>;
  /** Data to disk, closed, renamed over `dest`, directory synced. */
  commit(): Promise<void>;
  /** Closed and deleted: bytes that failed verification never become `dest`. */
  discard(): Promise<void>;
}

const OPEN_FLAGS = constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens `<dest>.part` for appending, creating it 0600. Anything at that path that is not our
 * own plain file (a symlink, a hard link, another owner's file, a FIFO) is unlinked and replaced,
 * never followed or written through.
 */
export async function openPartFile(dest: string): Promise<PartFile> {
  const path = partPathOf(dest);
  let handle = await openOwnRegular(path);
  if (handle === undefined) {
    await unlinkIfPresent(path);
    handle = await open(path, OPEN_FLAGS | constants.O_CREAT | constants.O_EXCL, PART_MODE);
  }
  await handle.chmod(PART_MODE); // an older part, or the umask, must not decide the mode
  const size = (await handle.stat()).size;
  return new OpenPart(path, dest, handle, size);
}

async function openOwnRegular(path: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'EISDIR' || code === 'ENXIO') return;
    throw error;
  }
  const info = await handle.stat();
  const ownUid = process.getuid?.() ?? info.uid;
  if (info.isFile() && info.nlink === 1 && info.uid === ownUid) return handle;
  await handle.close();
  return undefined;
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  }
}

class OpenPart implements PartFile {
  private writeback: Promise<void> | undefined;
  private sinceWriteback = 0;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly dest: string,
    private readonly handle: FileHandle,
    public size: number,
  ) {}

  async hashExisting(): Promise<Hash> {
    const hash = createHash('sha256');
    await readRange(this.handle, this.size, (chunk) => hash.update(chunk));
    return hash;
  }

  async truncate(): Promise<void> {
    await this.writeback;
    await this.handle.truncate(0);
    this.size = 0;
  }

  async append(chunks: readonly Buffer[]): Promise<void> {
    let bytes = 0;
    for (const chunk of chunks) bytes += chunk.length;
    if (bytes === 0) return;
    let written = 0;
    let pending = [...chunks];
    // writev may write less than asked; go on from where it stopped.
    while (written < bytes) {
      const { bytesWritten } = await this.handle.writev(pending, this.size + written);
      written += bytesWritten;
      pending = dropBytes(pending, bytesWritten);
    }
    this.size += bytes;
    this.sinceWriteback += bytes;
    if (this.sinceWriteback >= WRITEBACK_EVERY && this.writeback === undefined) {
      this.sinceWriteback = 0;
      this.writeback = this.handle.datasync().finally(() => (this.writeback = undefined));
    }
  }

  async keep(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.writeback;
      await this.handle.datasync();
    } finally {
      await this.handle.close();
    }
  }

  async commit(): Promise<void> {
    await this.keep();
    await rename(this.path, this.dest);
    await syncDirectory(dirname(this.dest));
  }

  async discard(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.writeback?.catch(() => undefined);
      await this.handle.close();
    }
    await unlinkIfPresent(this.path);
  }
}

function dropBytes(chunks: Buffer[], count: number): Buffer[] {
  const rest: Buffer[] = [];
  let skip = count;
  for (const chunk of chunks) {
    if (skip >= chunk.length) {
      skip -= chunk.length;
      continue;
    }
    rest.push(skip > 0 ? chunk.subarray(skip) : chunk);
    skip = 0;
  }
  return rest;
}

/**
 * Whether `path` is a plain file (a symlink is not followed) of exactly `size` bytes whose
 * SHA-256 is `sha256`: a verified download that a rerun reuses (DL-02).
 */
export async function isVerifiedFile(
  path: string,
  size: number,
  sha256: string,
  onHashing?: () => void,
): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined || !info.isFile() || info.size !== size) return false;
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.size !== size) return false;
    onHashing?.();
    const hash = createHash('sha256');
    await readRange(handle, size, (chunk) => hash.update(chunk));
    return hash.digest('hex') === sha256;
  } finally {
    await handle.close();
  }
}

async function readRange(
  handle: FileHandle,
  size: number,
  update: (chunk: Buffer) => void,
): Promise<void> {
  const buffer = Buffer.allocUnsafe(READ_CHUNK);
  for (let position = 0; position < size;) {
    const length = Math.min(READ_CHUNK, size - position);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    if (bytesRead === 0) break; // shortened under us: the size check after it catches that
    update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
}
