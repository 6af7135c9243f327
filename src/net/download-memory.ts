// Peak memory of a large download (target ≤ 100 MB for 1 GiB, issue #4). Measured with
// bench/download.ts in a bundled child, Node 20.20, undici 7.30:
//
//   default                                            ~138 MB peak RSS
//   + V8 Liftoff only (no TurboFan for undici's llhttp) ~101 MB
//   + a minor GC every 8 MiB received                   ~75 MB
//   every 4 MiB (issue #41: 256 KiB body buffers, the executable's code cache; the node half
//   came to 98.7 MB in the host): 87.5 -> 85.4 MB here, no slower
//
// Two costs of V8's defaults, neither from our buffers (one write batch of 1 MiB at a time):
// TurboFan compiling undici's llhttp WebAssembly in the background takes ~35 MB of compiler
// memory for a moment, and every socket read is a fresh 64 KiB buffer that V8 frees only when
// its external memory grows by 64 MB since the last collection. Liftoff code parses HTTP fast
// enough for a disk-bound download, and a minor GC (a scavenge, well under a millisecond here)
// frees those young buffers early.
//
// Process-wide V8 flags: call limitDownloadMemory() once at startup, before the first HTTP
// request (undici compiles llhttp on its first connection). Without the call, downloads work
// the same, with the default peak. The installer calls it too (issue #41): it downloads nothing
// large, but its first request to Core alone compiled llhttp with TurboFan (installer ~110 MB).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const COLLECT_EVERY = 4 * 1024 * 1024;

let minorGc: (() => void) | undefined;
let limited = false;
let sinceCollect = 0;

export function limitDownloadMemory(): void {
  if (limited) return;
  limited = true;
  try {
    setFlagsFromString('--liftoff-only');
    setFlagsFromString('--expose-gc');
    // A fresh context gets the `gc` function the flag exposes; the main context is unchanged.
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc === 'function') {
      minorGc = () => (gc as (options: object) => void)({ type: 'minor', execution: 'sync' });
    }
  } catch {
    minorGc = undefined; // a V8 without these flags: keep the defaults
  }
}

/** Counts bytes received; every 4 MiB, frees young socket buffers (only after the call above). */
export function noteReceived(bytes: number): void {
  if (minorGc === undefined) return;
  sinceCollect += bytes;
  if (sinceCollect >= COLLECT_EVERY) {
    sinceCollect = 0;
    minorGc();
  }
}
