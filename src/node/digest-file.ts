// The node half's digest cache (src/host/digest-index.ts): the SHA-256 of each node file with
// its stamp, in the state directory, oac-node's own like the files it describes (whoever can
// write it can write those files too). A cache: a missing or damaged one is an empty one.
// Found under the state directory the run was given (root's request, the node's --state-dir):
// under --root that is inside the root, where layout(id) would name this host's own (#23).
import { DigestIndex, digestRecordSchema } from '../host/digest-index.ts';
import type { NodeContext } from './drivers/node-context.ts';
import { lstatIfExists } from '../host/files.ts';
import type { Host } from '../host/host.ts';
import { parseJsonWith } from '../json-file.ts';
import { stateFile } from '../layout.ts';

/** The cache of the node state directory `stateDir` (a path of `host`). */
export async function loadDigestFile(host: Host, stateDir: string): Promise<DigestIndex> {
  const raw = await host.readNoFollow(stateFile(stateDir, 'digests')).catch(() => undefined);
  const known = raw === undefined ? undefined : parseJsonWith(raw, digestRecordSchema);
  // A rollout reconciles one generation's files only: the others' entries stay while their
  // files do (all in this account's own state directory).
  const inState = `${host.path(stateDir)}/`;
  const keepUnused = async (path: string) =>
    path.startsWith(inState) && (await lstatIfExists(path)) !== undefined;
  return new DigestIndex(known ?? {}, { keepUnused });
}

/** Written when the run changed it, and only into a state directory that exists. */
export async function saveDigestFile(
  host: Host,
  stateDir: string,
  index: DigestIndex,
): Promise<void> {
  if ((await host.lstat(stateDir))?.isDirectory() !== true) return;
  if (!(await index.changed())) return;
  const entries = await index.entries();
  // A cache: failing to write it fails nothing (and never hides the run's own error).
  await host
    .writeFile(stateFile(stateDir, 'digests'), `${JSON.stringify(entries, null, 2)}\n`, 0o600)
    .then(() => index.saved(entries))
    .catch(() => undefined);
}

/** A reconcile of the node half with the digest cache of `stateDir` (the request's state_dir),
 *  written back after (also after a failure: what was verified stays verified). A dry run
 *  writes nothing (DECL-03). */
export async function withDigestFile<T>(
  ctx: Omit<NodeContext, 'digests'>,
  stateDir: string,
  dryRun: boolean,
  run: (ctx: NodeContext) => Promise<T>,
): Promise<T> {
  const digests = await loadDigestFile(ctx.host, stateDir);
  try {
    return await run({ ...ctx, digests });
  } finally {
    if (!dryRun) await saveDigestFile(ctx.host, stateDir, digests);
  }
}
