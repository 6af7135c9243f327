// The node half's digest cache (src/host/digest-index.ts): the SHA-256 of each node file with
// its stamp, in the state directory, oac-node's own like the files it describes (whoever can
// write it can write those files too). A cache: a missing or damaged one is an empty one.
import { DigestIndex, digestRecordSchema } from '../host/digest-index.ts';
import type { DriverContext } from '../engine/driver.ts';
import { lstatIfExists } from '../host/files.ts';
import type { Host } from '../host/host.ts';
import { parseJsonWith } from '../json-file.ts';
import type { Layout } from '../layout.ts';

export async function loadDigestFile(host: Host, names: Layout): Promise<DigestIndex> {
  const raw = await host.readNoFollow(names.digestsFile).catch(() => undefined);
  const known = raw === undefined ? undefined : parseJsonWith(raw, digestRecordSchema);
  // A rollout reconciles one generation's files only: the others' entries stay while their
  // files do (all in this account's own state directory).
  const inState = `${host.path(names.stateDir)}/`;
  const keepUnused = async (path: string) =>
    path.startsWith(inState) && (await lstatIfExists(path)) !== undefined;
  return new DigestIndex(known ?? {}, { keepUnused });
}

/** Written when the run changed it, and only into a state directory that exists. */
export async function saveDigestFile(host: Host, names: Layout, index: DigestIndex): Promise<void> {
  if ((await host.lstat(names.stateDir))?.isDirectory() !== true) return;
  if (!(await index.changed())) return;
  const entries = await index.entries();
  // A cache: failing to write it fails nothing (and never hides the run's own error).
  await host
    .writeFile(names.digestsFile, `${JSON.stringify(entries, null, 2)}\n`, 0o600)
    .then(() => index.saved(entries))
    .catch(() => undefined);
}

/** A reconcile of the node half with its digest cache, written back after (also after a
 *  failure: what was verified stays verified). A dry run writes nothing (DECL-03). */
export async function withDigestFile<T>(
  ctx: DriverContext,
  dryRun: boolean,
  run: (ctx: DriverContext) => Promise<T>,
): Promise<T> {
  const digests = await loadDigestFile(ctx.host, ctx.layout);
  try {
    return await run({ ...ctx, digests });
  } finally {
    if (!dryRun) await saveDigestFile(ctx.host, ctx.layout, digests);
  }
}
