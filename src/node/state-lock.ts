// NODE-03: the state directory is used by one process at a time. A second `run` or `register`
// on the same directory stops at once with one line.
import { LockHeldError, lockDirectory, type Release } from '../host/lock.ts';
import { oacError } from '../messages.ts';

export async function lockStateDirectory(
  dir: string,
  onLost?: (error: Error) => void,
): Promise<Release> {
  try {
    return await lockDirectory(dir, { waitMs: 0, onLost });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    throw oacError('state_dir_locked', { dir });
  }
}
