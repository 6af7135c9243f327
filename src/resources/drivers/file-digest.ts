// A file's SHA-256 for a probe, from the run's digest cache where it has one (root's in the
// journal, the node half's in its state directory: src/host/digest-index.ts), so an unchanged
// file is not read again (issue #13); without one, read and hashed.
import type { DigestIndex } from '../../host/digest-index.ts';
import { sha256FileIfExists } from '../../host/files.ts';
import type { DriverContext } from '../driver.ts';

function indexOf(ctx: DriverContext): DigestIndex | undefined {
  return ctx.digests ?? ctx.journal?.digests;
}

export function fileSha256(ctx: DriverContext, path: string): Promise<string | undefined> {
  return indexOf(ctx)?.sha256(path) ?? sha256FileIfExists(path);
}

/** After this run wrote `path` with that content: the next run need not hash it. */
export async function rememberSha256(
  ctx: DriverContext,
  path: string,
  sha256: string,
): Promise<void> {
  await indexOf(ctx)?.remember(path, sha256);
}
