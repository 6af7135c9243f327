// SEC-05: one installer or uninstaller at a time per host. A second one waits briefly for the
// lock, then stops with one line and changes nothing. SEC-06: the lock lives where only root
// can write (src/layout.ts), and anything planted in its place is refused, never followed.
import type { Host } from '../src/host/host.ts';
import { LockHeldError, type Release } from '../src/host/lock.ts';
import { UnsafeLockError, lockRootFile } from '../src/host/root-lock.ts';
import { INSTALLER_LOCK } from '../src/layout.ts';
import { oacError } from '../src/messages.ts';

/** How long a second installer waits before it stops with `installer_busy`. */
export const INSTALLER_LOCK_WAIT_MS = 10_000;

export async function withInstallerLock<T>(host: Host, work: () => Promise<T>): Promise<T> {
  const release = await takeInstallerLock(host);
  try {
    return await work();
  } finally {
    await release();
  }
}

async function takeInstallerLock(host: Host): Promise<Release> {
  try {
    return await lockRootFile(host.path(INSTALLER_LOCK), { waitMs: INSTALLER_LOCK_WAIT_MS });
  } catch (error) {
    if (error instanceof LockHeldError) {
      const holder = error.holder === undefined ? '' : ` (PID ${error.holder})`;
      throw oacError('installer_busy', { holder });
    }
    if (error instanceof UnsafeLockError) {
      const values = { path: INSTALLER_LOCK, reason: error.reason };
      throw oacError('lock_unsafe', values);
    }
    throw error;
  }
}
