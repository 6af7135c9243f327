// REL-01 (issue #26): a file system that refuses a write (full, over quota, read-only, failing)
// is the host's condition, not a bug in oac-node: one line naming the path and a hint, never a
// stack. The Host's writing methods pass their errors through here with the host path they
// were changing, since Node's write through a file handle names none.
import { dirname } from 'node:path';
import type { OacError } from '../errors.ts';
import { oacError } from '../messages.ts';
import { isCode } from './files.ts';

/** The error as the host's condition at `hostPath`, or undefined when it is none of these. */
export function fileSystemFault(error: unknown, hostPath: string): OacError | undefined {
  const values = { path: hostPath, dir: dirname(hostPath) };
  if (isCode(error, 'ENOSPC') || isCode(error, 'EDQUOT'))
    return oacError('file_system_full', values, { cause: error });
  if (isCode(error, 'EROFS')) return oacError('file_system_read_only', values, { cause: error });
  if (isCode(error, 'EIO')) return oacError('file_system_failed', values, { cause: error });
  return undefined;
}

/** Runs a change to `hostPath`; a fault of its file system comes back as its one line. */
export async function changing<T>(hostPath: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    throw fileSystemFault(error, hostPath) ?? error;
  }
}
