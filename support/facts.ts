// What the support bundle's collectors share (support/collect.ts, support/host-facts.ts,
// support/disk-space.ts): reading a small file of root's, asking the live system on the real
// root only, and a fact that cannot be had recorded with why instead of failing the bundle.
import type { Host } from '../src/host/host.ts';

/** A record, a unit or the last run's events: root's files, a few hundred KiB at most. */
const SMALL = 1024 * 1024;

export async function small(host: Host, path: string): Promise<Buffer> {
  const found = await host.readSmallFile(path, SMALL);
  if (found.kind !== 'file') throw new Error(`${path}: ${found.kind}`);
  return found.bytes;
}

/** On the real root only: what this machine's systemd, journal or Docker says. Under --root
 *  (tests, image building) it would describe this machine, not the tree. */
export async function live(host: Host, command: string, args: string[]): Promise<string> {
  if (host.prefixed) throw new Error('not asked under --root (it would describe this machine)');
  const r = await host.run(command, args, { timeoutMs: 30_000 });
  if (r.exitCode !== 0)
    throw new Error(`${command} exited ${r.exitCode}: ${r.stderr.trim().slice(0, 200)}`);
  return r.stdout;
}

/** A fact that could not be had, and why (one short line). */
export interface Unavailable {
  unavailable: string;
}

export function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').slice(0, 200);
}

/** The fact, or why it could not be had: one missing fact never costs the others. */
export async function fact<T>(get: () => Promise<T>): Promise<T | Unavailable> {
  try {
    return await get();
  } catch (error) {
    return { unavailable: reasonOf(error) };
  }
}
