// Issue #13: a file's SHA-256 is computed once and kept with the file's stamp (device, inode,
// size, mtime and ctime in nanoseconds), as git's index keeps one per tracked file; while the
// stamp is the same the digest is taken from the index, so a converged host never reads its
// 1 GiB Runtime archive again. Any write to the file, a rename over it or a utimes() moves its
// ctime, which no one but the kernel sets (only a clock change by root could bring it back), so
// a changed file is always hashed again: drift is still found.
//
// "Racy" stamps, as git calls them: the kernel's ctime advances in clock ticks (a few ms), so a
// write in the same tick as the stamp was taken could leave the stamp unchanged. A stamp is
// therefore kept only if its ctime already lay SETTLE_NS in the past when the file was first
// looked at (two seconds on a file system that keeps whole seconds); remember() (a file this
// run has just written) waits for that and checks that the stamp held, a hash of an unsettled
// file is simply not kept. Left open: a write through a shared memory mapping to a page that
// is already dirty does not move the ctime (no writer of these files maps them).
import { constants, type BigIntStats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import * as z from 'zod';
import { hashHandle, isAbsent, isCode } from './files.ts';

const decimal = z.string().regex(/^\d{1,40}$/);
const entrySchema = z.object({
  dev: decimal,
  ino: decimal,
  size: decimal,
  mtime_ns: decimal,
  ctime_ns: decimal,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type DigestEntry = z.infer<typeof entrySchema>;
/** Entries by path, as stored (the journal's `digests`, the node's digests file). */
export const digestRecordSchema = z.record(z.string().startsWith('/'), entrySchema);
export type DigestRecord = z.infer<typeof digestRecordSchema>;

/** Longer than any clock tick of the kernel's coarse clock, which stamps ctime. */
const SETTLE_NS = 20_000_000n;
/** For a ctime of whole seconds (a file system without finer timestamps). */
const SETTLE_COARSE_NS = 2_000_000_000n;
/** Date.now()'s grain: "now" may lie up to this far behind the kernel's stamps. */
const NOW_GRAIN_NS = 1_000_000n;

export interface DigestIndexOptions {
  /** Nanoseconds since the epoch (tests set the clock). */
  nowNs?: () => bigint;
  /** Whether an entry this run did not use is written back; default: no (only what a run
   *  used is kept, so the index never outgrows one run's files). Never called for root's. */
  keepUnused?: (path: string) => Promise<boolean>;
}

export class DigestIndex {
  /** Entries looked up or made in this run. */
  private readonly used: DigestRecord = {};
  /** What the store holds now (what was read, then what was last written). */
  private stored: DigestRecord;
  /** Paths whose content was read and hashed in this run (tests and benches count them). */
  readonly hashed: string[] = [];

  private readonly nowNs: () => bigint;

  constructor(
    private readonly known: DigestRecord = {},
    private readonly options: DigestIndexOptions = {},
  ) {
    this.stored = known;
    this.nowNs = options.nowNs ?? (() => BigInt(Date.now()) * 1_000_000n);
  }

  /** What to store: this run's entries, and the earlier ones keepUnused() keeps. The caller
   *  writes it, then calls saved(). */
  async entries(): Promise<DigestRecord> {
    const kept = { ...this.used };
    const keepUnused = this.options.keepUnused;
    if (keepUnused !== undefined)
      for (const [path, entry] of Object.entries(this.known))
        if (!(path in kept) && (await keepUnused(path).catch(() => false))) kept[path] = entry;
    return JSON.parse(sortedJson(kept)) as DigestRecord;
  }

  /** Whether entries() differs from what the store holds. */
  async changed(): Promise<boolean> {
    return sortedJson(await this.entries()) !== sortedJson(this.stored);
  }

  saved(entries: DigestRecord): void {
    this.stored = entries;
  }

  /** The SHA-256 of the file at `path` (links followed, as a read does); undefined when there
   *  is no file there. Hashed only when its stamp differs from the one recorded. */
  async sha256(path: string): Promise<string | undefined> {
    const lookedAt = this.nowNs(); // before the stat: a later write moves the ctime past it
    const opened = await openIfFile(path);
    if (opened === undefined) return undefined;
    const { handle, stamp: before } = opened;
    try {
      const known = this.known[path];
      if (known !== undefined && sameStamp(known, before)) {
        this.keep(path, known);
        return known.sha256;
      }
      const sha256 = await hashHandle(handle);
      this.hashed.push(path);
      const after = stampOf(await handle.stat({ bigint: true }));
      // Changed while it was read, or too fresh to trust its stamp: not kept.
      if (sameStamp(before, after) && settledAt(before, lookedAt))
        this.keep(path, { ...before, sha256 });
      return sha256;
    } finally {
      await handle.close();
    }
  }

  /** A file this run has just written and verified as `sha256`: its stamp is taken once it
   *  has settled (at most SETTLE_NS of waiting) and kept only if it held meanwhile, so the next
   *  run need not read the file again. */
  async remember(path: string, sha256: string): Promise<void> {
    const opened = await openIfFile(path);
    if (opened === undefined) return;
    const { handle, stamp: first } = opened;
    try {
      // A timer may fire a little before Date.now() says it is due (they read different clocks,
      // in whole ms): wait again, a few times at most, rather than not keep the stamp. Date.now()
      // is truncated to the ms, so a file written in this very ms has a ctime up to 1 ms ahead
      // of "now": that is no clock jump (CI saw the stamp not kept for it, once).
      for (let tries = 0; tries < 3; tries += 1) {
        const wait = BigInt(first.ctime_ns) + SETTLE_NS - this.nowNs();
        if (wait <= 0n || wait > SETTLE_NS + NOW_GRAIN_NS) break;
        await new Promise((resolve) => setTimeout(resolve, Number(wait / 1_000_000n) + 1));
      }
      const lookedAt = this.nowNs();
      const second = stampOf(await handle.stat({ bigint: true }));
      if (sameStamp(first, second) && settledAt(second, lookedAt))
        this.keep(path, { ...second, sha256 });
    } finally {
      await handle.close();
    }
  }

  private keep(path: string, entry: DigestEntry): void {
    this.used[path] = entry;
  }
}

/** Whether a stamp seen at `at` can be trusted: its ctime lay far enough in the past that any
 *  later change moves it. */
function settledAt(stamp: Stamp, at: bigint): boolean {
  const ctime = BigInt(stamp.ctime_ns);
  const settle = ctime % 1_000_000_000n === 0n ? SETTLE_COARSE_NS : SETTLE_NS;
  return at - ctime >= settle;
}

function sortedJson(record: DigestRecord): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1))),
  );
}

type Stamp = Omit<DigestEntry, 'sha256'>;

function stampOf(s: BigIntStats): Stamp {
  return {
    dev: String(s.dev),
    ino: String(s.ino),
    size: String(s.size),
    mtime_ns: String(s.mtimeNs),
    ctime_ns: String(s.ctimeNs),
  };
}

function sameStamp(a: Stamp, b: Stamp): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtime_ns === b.mtime_ns &&
    a.ctime_ns === b.ctime_ns
  );
}

/** An open regular file and its stamp, or undefined where there is none (missing, a
 *  directory, anything but a regular file). Opened non-blocking: a FIFO put in a file's place
 *  cannot hang the run. */
async function openIfFile(path: string): Promise<{ handle: FileHandle; stamp: Stamp } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (isAbsent(error) || isCode(error, 'EISDIR')) return undefined;
    throw error;
  }
  const stats = await handle.stat({ bigint: true });
  if (stats.isFile()) return { handle, stamp: stampOf(stats) };
  await handle.close();
  return undefined;
}
