// A host that starts installed (issue #28 item 4): for the tests whose subject comes after the
// line (a rerun, status, uninstall, a saved plan, an upgrade), instead of pasting the line in a
// fresh host again in every one of them. Once per run, under a lock, one host is booted, the line
// installs a ready node in it, and the host is powered off cleanly and frozen: what it changed
// (its overlay's upper dir, its /var/lib/docker) and what its Core knew (GET /__fixture/state)
// are kept beside the run's release (helpers/release.ts, removed with that dist/ build). Each
// test then boots a host with that layer over the rootfs and a copy of its Docker data, and a
// Core started from the kept state on the same ports while the host boots: the node's service
// starts with the host, as after a reboot, and the host is handed over once Core lists the node
// connected and ready. What the line printed and the host before the line are kept too, for the
// tests that compare an uninstall with it.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import type { TestRelease } from '../helpers/release.ts';
import { listNodes, type CoreNode } from './core-nodes.ts';
import {
  bootWithCore,
  filePair,
  type BootedPair,
  type CoreInHost,
  type FilePair,
} from './core-pair.ts';
import { installByLine, type InstalledByLine } from './enroll.ts';
import { ensureRootfs, repoRoot } from './rootfs.ts';
import type { HostSnapshot } from './snapshot.ts';
import { waitUntil } from './wait.ts';

/** Raised whenever what the cache holds changes shape: an older run's cache is not read. */
const FORMAT = 1;

export interface InstalledPair extends BootedPair {
  /** The line that installed the node (its token used), its installation ID and uninstall. */
  readonly line: InstalledByLine;
  /** The host before the line ran (the same rootfs, as a fresh host is). */
  readonly before: HostSnapshot;
}

interface Kept {
  format: number;
  line: InstalledByLine;
  before: HostSnapshot;
  corePort: number;
  releasePort: number;
}

/** Boots a host with the run's install of `release` (made on first use); stop() it after. */
export async function bootInstalled(release: TestRelease): Promise<InstalledPair> {
  const cache = await installedCache(release);
  const kept = JSON.parse(readFileSync(join(cache, 'kept.json'), 'utf8')) as Kept;
  // The kept ports come after startCoreInHost's own `--port 0`: the last one counts.
  const coreArgs = async () => [
    ...['--release-dir', await release.dir()],
    ...['--port', String(kept.corePort), '--release-port', String(kept.releasePort)],
    ...['--installation-id', kept.line.installationId],
    ...['--state-file', join(cache, 'state.json')],
  ];
  const pair = await bootWithCore(coreArgs, {
    layer: join(cache, 'upper'),
    dockerSeed: join(cache, 'docker'),
    coreEarly: true,
  });
  try {
    await untilReady(pair.core);
  } catch (error) {
    await pair.stop();
    throw error;
  }
  return { ...pair, line: kept.line, before: kept.before };
}

/** What a host booted from the run's install starts from (issue #40: a copied host is booted
 *  from the same files): its overlay's files and its Docker data, both read-only to the caller,
 *  and the ports its Core listens on. */
export async function installedFiles(
  release: TestRelease,
): Promise<{ upper: string; docker: string; corePort: number; releasePort: number }> {
  const cache = await installedCache(release);
  const kept = JSON.parse(readFileSync(join(cache, 'kept.json'), 'utf8')) as Kept;
  const { corePort, releasePort } = kept;
  return { upper: join(cache, 'upper'), docker: join(cache, 'docker'), corePort, releasePort };
}

/** An installed host and its Core for `fn`, stopped afterwards whatever happens. */
export async function withInstalledHost(
  release: TestRelease,
  fn: (pair: InstalledPair) => Promise<void>,
): Promise<void> {
  const pair = await bootInstalled(release);
  try {
    await fn(pair);
  } finally {
    await pair.stop();
  }
}

/** A test file's installed host for all its tests, like hostWithCore (core-pair.ts): boot()
 *  first in the file's one `before` hook; an `after` hook stops it. */
export function installedHostWithCore(release: TestRelease): FilePair<InstalledPair> {
  return filePair(() => bootInstalled(release));
}

/** Until Core lists the one node connected, its provider ready, serving its target. */
async function untilReady(core: CoreInHost): Promise<CoreNode> {
  return waitUntil(
    'the installed node to connect to its Core and be ready',
    async () => (await listNodes(core))[0],
    {
      timeoutMs: 90_000,
      intervalMs: 100,
      done: (n) => n.connected && n.provider_ready && n.rollout.state === 'ready',
    },
  );
}

/** What the frozen install is made of besides dist/ (the release's key): the sources of the
 *  line as Core renders it, of the Core and of these helpers (the program's own too, for a dist/
 *  not rebuilt after a change), and the rootfs. A change to any makes a new one. */
const keys = new Map<string, string>();

function installKey(rootfs: string): string {
  const known = keys.get(rootfs);
  if (known !== undefined) return known; // hashed once a test process: its sources are fixed
  const hash = createHash('sha256').update(`${FORMAT}\0${rootfs}\0`);
  for (const top of [
    'src',
    'installer',
    'uninstaller',
    'fixtures',
    'test/e2e/harness',
    'test/e2e/helpers',
  ]) {
    const names = readdirSync(join(repoRoot, top), { recursive: true, encoding: 'utf8' }).sort();
    for (const name of names) {
      const path = join(repoRoot, top, name);
      if (statSync(path).isFile()) hash.update(`${top}/${name}\0`).update(readFileSync(path));
    }
  }
  const key = hash.digest('hex').slice(0, 16);
  keys.set(rootfs, key);
  return key;
}

/** A failed build is not tried again by every installed host of the same test file. */
const failed = new Map<string, unknown>();

/** The installed host of `release` for these sources and this rootfs (installKey): made once, by
 *  whichever test file asks first while the others wait on the lock; later runs with the same
 *  dist/ build and sources use it too. */
async function installedCache(release: TestRelease): Promise<string> {
  const parent = await release.cacheDir();
  const dir = join(parent, `installed-${installKey(await ensureRootfs())}`);
  if (existsSync(join(dir, 'kept.json'))) return dir;
  if (failed.has(dir)) throw failed.get(dir);
  let lost: Error | undefined;
  const unlock = await lockfile.lock(parent, {
    lockfilePath: join(parent, 'installed.lock'),
    // A holder that died leaves a lock nobody refreshes: taken over after two minutes (a live
    // holder refreshes it every 10 s, though its event loop may block for seconds under load).
    stale: 120_000,
    update: 10_000,
    retries: { retries: 2_000, factor: 1, minTimeout: 500, maxTimeout: 500 },
    // Taken over all the same: this build fails at its end instead of the whole test process.
    onCompromised: (error) => (lost = error),
  });
  try {
    if (existsSync(join(dir, 'kept.json'))) return dir;
    removeDeadBuilds(parent);
    const building = join(parent, `installed.building-${process.pid}-${randomUUID()}`);
    try {
      await installAndFreeze(release, building);
      if (lost !== undefined) throw new Error(`the lock ${parent}/installed.lock was taken over`);
      renameSync(building, dir);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (existsSync(join(dir, 'kept.json'))) return dir; // made meanwhile by whoever took over
      failed.set(dir, error);
      throw error;
    }
    return dir;
  } finally {
    await unlock().catch(() => undefined); // released already when it was taken over
  }
}

/** Building dirs whose test process is gone (a killed run's); a live builder's stay. */
function removeDeadBuilds(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = Number(/^installed\.building-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && !isRunning(pid))
      rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A fresh host, the line pasted into it, the host frozen into `dest` with its Core's state. */
async function installAndFreeze(release: TestRelease, dest: string): Promise<void> {
  // Never kept (OAC_E2E_KEEP=1 keeps the hosts of the tests): a kept host cannot be frozen.
  const pair = await bootWithCore(async () => ['--release-dir', await release.dir()], {
    keep: false,
  });
  try {
    const { host, core } = pair;
    const before = await host.snapshot();
    const line = await installByLine(host, core);
    await untilReady(core);
    // DECL-01 right after the line, before the reboot every later host of it has been through
    // (which could hide drift such as a unit systemd was not reloaded for).
    const [exe] = line.uninstall.slice(3);
    const status = await host.exec([
      'env',
      '-u',
      'NODE_OPTIONS',
      exe as string,
      'status',
      '--json',
    ]);
    assert.equal(status.status, 0, `status right after the line: ${status.stdout}${status.stderr}`);
    assert.deepEqual((JSON.parse(status.stdout) as { problems: string[] }).problems, []);
    const state = await core.coreApi('GET', '/__fixture/state');
    assert.equal(state.status, 200, 'the Core gives its state');
    const kept: Kept = {
      format: FORMAT,
      line,
      before,
      corePort: Number(new URL(core.coreUrl).port),
      releasePort: Number(new URL(core.releaseUrl).port),
    };
    await core.stop();
    mkdirSync(dest, { recursive: true, mode: 0o700 });
    // The line's token is in the kept line (used, so worth nothing): root's alone all the same.
    writeFileSync(join(dest, 'state.json'), JSON.stringify(state.body), { mode: 0o600 });
    await host.freeze(dest);
    writeFileSync(join(dest, 'kept.json'), JSON.stringify(kept), { mode: 0o600 });
  } catch (error) {
    await pair.stop().catch(() => undefined);
    throw error;
  }
}
