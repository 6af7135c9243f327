// SEC-05: one installer or uninstaller at a time per host. A second one waits briefly for the
// lock, then stops with one line and changes nothing.
import { OacError } from '../src/errors.ts';
import type { Host } from '../src/host/host.ts';
import { LockHeldError, lockFile } from '../src/host/lock.ts';
import { INSTALLER_LOCK } from '../src/layout.ts';
import { hint, message } from '../src/messages.ts';

export async function withInstallerLock<T>(host: Host, work: () => Promise<T>): Promise<T> {
  let release;
  try {
    release = await lockFile(host.path(INSTALLER_LOCK), { waitMs: 10_000 });
  } catch (error) {
    if (error instanceof LockHeldError)
      throw new OacError('installer_busy', message('installer_busy'), {
        hint: hint('installer_busy'),
      });
    throw error;
  }
  try {
    return await work();
  } finally {
    await release();
  }
}
