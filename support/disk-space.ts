// host.json's `disk` (issue #40, docs/support.md): the free space of each directory the
// installation writes to, as the preflight's PRE-07 weighs it before a download
// (installer/preflight.ts, installer/preflight-microsandbox.ts). Measured with `stat -f`
// (statfs(2)) through the Host: node:fs is the Host's alone (eslint.config.js), and a host path
// is measured under --root as on the real root. A directory not made yet is measured at its
// nearest existing parent, which is named.
import { dirname } from 'node:path';
import type { Host } from '../src/host/host.ts';
import type { JournalInputs } from '../records/journal.ts';
import { JOURNAL_DIR, NODE_HOME, RUN_LOG_DIR, storeDirs, type Layout } from '../src/layout.ts';
import { fact, type Unavailable } from './facts.ts';

export interface Written {
  /** What the node keeps there. */
  what: string;
  /** A host path; null: not known (Docker did not say where it keeps images). */
  path: string | null;
  /** Docker's data root is the daemon's own, a path of this machine, never under --root (as
   *  installer/preflight-checks.ts DiskNeed says). */
  daemonPath?: boolean;
}

export interface Space {
  measured: string;
  free_bytes: number;
  total_bytes: number;
}

/** The directories this installation writes to: those of its provider (both when the record
 *  does not say which), and Docker's data root as Docker answered it, or why not. */
export function writtenDirs(
  names: Layout,
  inputs: JournalInputs | undefined,
  dockerRoot: string | Unavailable,
): Array<Written & Partial<Unavailable>> {
  const provider = inputs?.provider ?? null;
  const dirs: Array<Written & Partial<Unavailable>> = [
    { what: "the node's home (the Runtime archive)", path: NODE_HOME },
    { what: "the node's state", path: names.stateDir },
    { what: 'the records', path: JOURNAL_DIR },
    { what: "the last run's events", path: RUN_LOG_DIR },
    { what: 'the node program', path: names.programDir },
  ];
  if (provider !== 'docker') {
    dirs.push({ what: "microsandbox's store", path: names.store });
    const checkpoints = inputs?.checkpoint_root ?? storeDirs(names.store).checkpoints;
    dirs.push({ what: 'the checkpoints', path: checkpoints });
  }
  if (provider !== 'microsandbox')
    dirs.push(
      typeof dockerRoot === 'string'
        ? { what: "Docker's images", path: dockerRoot, daemonPath: true }
        : { what: "Docker's images", path: null, unavailable: dockerRoot.unavailable },
    );
  return dirs;
}

/** Each directory's file system: free and total bytes, or why not. */
export async function diskSpace(
  host: Host,
  dirs: ReadonlyArray<Written & Partial<Unavailable>>,
): Promise<Array<Written & (Space | Unavailable)>> {
  const spaces = [];
  for (const { daemonPath, ...dir } of dirs) {
    const { path } = dir;
    if (dir.unavailable !== undefined || path === null) {
      spaces.push({ ...dir, unavailable: dir.unavailable ?? 'not known' });
      continue;
    }
    spaces.push({ ...dir, ...(await fact(() => measure(host, path, daemonPath === true))) });
  }
  return spaces;
}

async function measure(host: Host, path: string, daemonPath: boolean): Promise<Space> {
  const measured = daemonPath ? path : await nearestExisting(host, path);
  const real = daemonPath ? path : host.path(measured);
  // %a: blocks free to an unprivileged user (what a download as oac-node gets; statfs's
  // f_bavail, as src/host/probe.ts counts it), %b: all blocks, %S: their size.
  const r = await host.run('stat', ['-f', '-c', '%a %b %S', '--', real], { timeoutMs: 10_000 });
  if (r.exitCode !== 0) throw new Error(`stat -f ${measured}: ${r.stderr.trim().slice(0, 200)}`);
  return { measured, ...statfsOf(r.stdout) };
}

/** `stat -f -c '%a %b %S'`'s answer as bytes. */
export function statfsOf(text: string): { free_bytes: number; total_bytes: number } {
  const [free, total, size] = text.trim().split(/\s+/).map(Number);
  const bytes = (blocks: number | undefined) =>
    blocks !== undefined && size !== undefined ? blocks * size : NaN;
  const space = { free_bytes: bytes(free), total_bytes: bytes(total) };
  if (!Object.values(space).every(Number.isSafeInteger) || (size ?? 0) <= 0)
    throw new Error(`stat -f said ${JSON.stringify(text.trim().slice(0, 80))}`);
  return space;
}

/** The path itself, or its nearest parent that exists (a link counts: statfs follows it). */
async function nearestExisting(host: Host, path: string): Promise<string> {
  let at = path;
  while ((await host.lstat(at)) === undefined && at !== dirname(at)) at = dirname(at);
  return at;
}
