// The bundle file's I/O (OFFLINE-01): list its entries, hash or copy one entry by its byte range,
// and write a bundle whole. Root opens the operator's bundle once and hands the open descriptor
// to the node half (which never gets its path); both read it by position only, so one open file
// serves every reader at once.
import { createHash } from 'node:crypto';
import { constants, read as readCallback, type Stats } from 'node:fs';
import { fstat as fstatCallback } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { BLOCK, fileHeader, paddingOf, parseHeader, type TarEntry } from './tar-header.ts';
import { isVerifiedFile, openPartFile } from './part-file.ts';
import { isCode, syncDirectory } from './files.ts';
import { oacError } from '../messages.ts';
import { dirname } from 'node:path';

const readAt = promisify(readCallback);
const fstat = promisify(fstatCallback);
const PIECE = 1024 * 1024;
/** A bundle holds a manifest, the installer and a handful of node files. */
const MAX_ENTRIES = 64;

/** Opens the operator's bundle for reading: a regular file (a FIFO or device is refused, never
 *  waited on). Its descriptor stays open until `close`. */
export async function openBundleFile(
  path: string,
): Promise<{ fd: number; size: number; close(): Promise<void> }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const info = await handle.stat();
  if (!info.isFile()) {
    await handle.close();
    throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
  }
  return { fd: handle.fd, size: info.size, close: () => handle.close() };
}

/** The size of the file behind an inherited descriptor (the node half's bundle). */
export async function sizeOfFd(fd: number): Promise<number> {
  const info: Stats = await fstat(fd);
  if (!info.isFile()) throw new Error('the bundle descriptor is not a regular file');
  return info.size;
}

/** Every entry, in order; a string says why this is no bundle archive (damaged or foreign). */
export async function listEntries(fd: number, fileSize: number): Promise<TarEntry[] | string> {
  const entries: TarEntry[] = [];
  const header = Buffer.alloc(BLOCK);
  for (let offset = 0; ;) {
    if (offset + BLOCK > fileSize) return 'it ends before its last header';
    const { bytesRead } = await readAt(fd, header, 0, BLOCK, offset);
    const parsed = parseHeader(header.subarray(0, bytesRead), offset);
    if (parsed === 'end') return entries;
    if (typeof parsed === 'string') return `it has ${parsed}`;
    const entry = { name: parsed.name, offset: offset + BLOCK, size: parsed.size };
    if (entry.offset + entry.size > fileSize) return `its entry ${parsed.name} is cut short`;
    if (entries.some((e) => e.name === entry.name)) return `it holds ${parsed.name} twice`;
    if (entries.length === MAX_ENTRIES) return `it holds more than ${MAX_ENTRIES} entries`;
    entries.push(entry);
    offset = entry.offset + entry.size + paddingOf(entry.size);
  }
}

/** Reads one entry's bytes, piece by piece (the piece's buffer is reused). */
async function eachPiece(
  fd: number,
  entry: TarEntry,
  onPiece: (piece: Buffer) => Promise<void> | void,
): Promise<void> {
  const buffer = Buffer.allocUnsafe(Math.min(PIECE, Math.max(entry.size, 1)));
  for (let done = 0; done < entry.size;) {
    const length = Math.min(buffer.length, entry.size - done);
    const { bytesRead } = await readAt(fd, buffer, 0, length, entry.offset + done);
    if (bytesRead === 0) throw new Error(`the bundle ends inside ${entry.name}`);
    await onPiece(buffer.subarray(0, bytesRead));
    done += bytesRead;
  }
}

export async function sha256OfEntry(fd: number, entry: TarEntry): Promise<string> {
  const hash = createHash('sha256');
  await eachPiece(fd, entry, (piece) => void hash.update(piece));
  return hash.digest('hex');
}

/** A small entry's bytes (the manifest); undefined when larger than `max` bytes. */
export async function entryBytes(
  fd: number,
  entry: TarEntry,
  max: number,
): Promise<Buffer | undefined> {
  if (entry.size > max) return undefined;
  const chunks: Buffer[] = [];
  await eachPiece(fd, entry, (piece) => void chunks.push(Buffer.from(piece)));
  return Buffer.concat(chunks);
}

export interface CopyProgress {
  phase: 'reused' | 'start' | 'progress' | 'done';
  received: number;
}

/**
 * Copies one entry to `dest` through `<dest>.part` (never written through a link: part-file.ts)
 * and renames it over `dest` only if its SHA-256 is `sha256`; a `dest` already verified is kept.
 * Returns the SHA-256 it found when that is not `sha256` (nothing then becomes `dest`).
 */
export async function copyEntry(
  fd: number,
  entry: TarEntry,
  dest: string,
  sha256: string,
  onProgress: (p: CopyProgress) => void,
): Promise<string | undefined> {
  if (await isVerifiedFile(dest, entry.size, sha256)) {
    onProgress({ phase: 'reused', received: entry.size });
    return undefined;
  }
  const part = await openPartFile(dest);
  let committed = false;
  try {
    await part.truncate();
    onProgress({ phase: 'start', received: 0 });
    const hash = createHash('sha256');
    let received = 0;
    await eachPiece(fd, entry, async (piece) => {
      hash.update(piece);
      await part.append([Buffer.from(piece)]);
      received += piece.length;
      onProgress({ phase: 'progress', received });
    });
    const actual = hash.digest('hex');
    if (actual !== sha256) return actual;
    await part.commit();
    committed = true;
    onProgress({ phase: 'done', received });
    return undefined;
  } finally {
    if (!committed) await part.discard();
  }
}

/** Writes a bundle whole: `<out>.part`, each file's header and bytes, the end blocks, then a
 *  rename, so `out` is never half written. `files` are read from disk as they are now. */
export async function writeBundle(
  out: string,
  /** `sha256`: what each file must hash to as it is written (the manifest's word). */
  files: ReadonlyArray<{ name: string; path: string; sha256: string }>,
  mtimeSeconds: number,
): Promise<number> {
  const partPath = `${out}.part`;
  let written = 0;
  await rm(partPath, { force: true });
  const handle = await open(
    partPath,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    for (const file of files) {
      const source = await open(file.path, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const size = (await source.stat()).size;
        await handle.write(fileHeader(file.name, size, mtimeSeconds));
        const hash = createHash('sha256');
        await eachPiece(source.fd, { name: file.name, offset: 0, size }, async (piece) => {
          hash.update(piece);
          await handle.write(piece);
        });
        // Verified as written: a file changed since its download never enters the bundle.
        if (hash.digest('hex') !== file.sha256)
          throw oacError('bundle_source_changed', { file: file.name });
        await handle.write(Buffer.alloc(paddingOf(size)));
        written += BLOCK + size + paddingOf(size);
      } finally {
        await source.close();
      }
    }
    await handle.write(Buffer.alloc(2 * BLOCK));
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(partPath, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(partPath, out);
  } catch (error) {
    await rm(partPath, { force: true });
    throw error;
  }
  await syncDirectory(dirname(out));
  return written + 2 * BLOCK;
}

/**
 * The bundle maker's work directory: made by this process's user, 0700, not a link. One left by
 * an earlier run of the same user is reused (its downloads resume); anything else at that path
 * (another user's, a link, a wider mode) is refused, never written into.
 */
export async function ownWorkDirectory(path: string): Promise<'ok' | string> {
  try {
    await mkdir(path, { mode: 0o700 });
  } catch (error) {
    if (!isCode(error, 'EEXIST')) throw error;
  }
  const info = await lstat(path);
  if (!info.isDirectory()) return 'it is not a directory';
  if (info.uid !== process.getuid?.()) return 'another user owns it';
  const mode = info.mode & 0o777;
  if (mode !== 0o700) return `its mode is 0${mode.toString(8)}, not 0700`;
  return 'ok';
}

/** The work directory once the bundle is written (ours and 0700: nothing planted in it). */
export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}
