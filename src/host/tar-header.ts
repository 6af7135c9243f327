// The bundle's container (OFFLINE-01): a plain ustar archive of regular files with flat names, so
// any host can list it and the pasted line can take the installer out with `tar -xOf`. Pure code:
// one 512-byte header made or read at a time; src/host/bundle-file.ts does the file I/O.

export const BLOCK = 512;
/** ustar's 11 octal digits: 8 GiB - 1 per file, which a Runtime image stays far below. */
export const MAX_ENTRY_BYTES = 8 ** 11 - 1;

export interface TarEntry {
  name: string;
  /** Where the entry's data starts in the archive, and its length. */
  offset: number;
  size: number;
}

/** Zero bytes after `size` bytes of data, up to the next block. */
export function paddingOf(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** The header of one regular file: mode 0644, uid and gid 0, a fixed mtime (reproducible). */
export function fileHeader(name: string, size: number, mtimeSeconds: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const bytes = Buffer.from(name, 'utf8');
  // A name UTF-8 cannot carry (a lone surrogate) would read back as another (U+FFFD).
  const lossy = bytes.toString('utf8') !== name;
  if (bytes.length === 0 || bytes.length > 100 || name.includes('/') || bytes.includes(0) || lossy)
    // Only manifest-checked names reach here: a bug if not, shown escaped (JSON) all the same.
    throw new Error(`bundle: bad entry name ${JSON.stringify(name)}`);
  bytes.copy(block, 0);
  writeOctal(block, 100, 8, 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, mtimeSeconds);
  block.fill(0x20, 148, 156); // the checksum counts as spaces while summing
  block.write('0', 156, 'latin1');
  block.write('ustar\u000000', 257, 'latin1');
  block.write(`${checksum(block).toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
  return block;
}

/** Reads one header: an entry, 'end' (a zero block), or why it is no header of ours. */
export function parseHeader(
  block: Buffer,
  headerOffset: number,
): { name: string; size: number } | 'end' | string {
  if (block.length !== BLOCK) return 'the archive ends inside a header';
  if (block.every((b) => b === 0)) return 'end';
  const stored = parseOctal(block.subarray(148, 156));
  const summed = checksum(
    Buffer.concat([block.subarray(0, 148), Buffer.alloc(8, 0x20), block.subarray(156)]),
  );
  if (stored !== summed) return `a damaged header at byte ${headerOffset}`;
  if (block.toString('latin1', 257, 262) !== 'ustar')
    return `no ustar header at byte ${headerOffset}`;
  const type = block.toString('latin1', 156, 157);
  if (type !== '0' && type !== '\u0000')
    return `an entry that is not a regular file at byte ${headerOffset}`;
  const end = block.indexOf(0);
  const name = block.toString('utf8', 0, end < 0 || end > 100 ? 100 : end);
  const prefix = block.subarray(345, 500);
  if (prefix.some((b) => b !== 0)) return `an entry with a directory at byte ${headerOffset}`;
  const size = parseOctal(block.subarray(124, 136));
  if (size === undefined || size > MAX_ENTRY_BYTES) return `a bad size at byte ${headerOffset}`;
  return { name, size };
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (const byte of block) sum += byte;
  return sum;
}

function parseOctal(field: Buffer): number | undefined {
  const text = field
    .toString('latin1')
    .replace(/[\u0000 ]+$/, '')
    .replace(/^ +/, '');
  if (!/^[0-7]{1,11}$/.test(text)) return undefined;
  return Number.parseInt(text, 8);
}

// Zero-padded octal, NUL-terminated (size - 1 digits).
function writeOctal(block: Buffer, offset: number, size: number, value: number): void {
  const digits = value.toString(8).padStart(size - 1, '0');
  if (!Number.isSafeInteger(value) || value < 0 || digits.length > size - 1)
    throw new Error(`bundle: ${value} does not fit a ${size}-byte tar field`);
  block.write(`${digits}\u0000`, offset, 'latin1');
}
