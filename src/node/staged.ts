// OFFLINE-01: a release staged from a bundle for the node's own rollout. When Core's
// configuration moves to a release this host cannot download, the operator runs the install
// command again with a bundle of that release: the node half copies and loads its files (the
// rollout's own desired state, src/node/node-desired.ts) and keeps its manifest here, in the
// node's state directory; the rollout then finds everything in place and reads the manifest
// from here instead of the console.
import { join } from 'node:path';
import { stateFile } from '../layout.ts';
import { parseJsonWith } from '../json-file.ts';
import { ensureDirectory, readIfExists, writeFileAtomic } from '../host/files.ts';
import { releaseManifestSchema, type ReleaseManifest } from '../net/release-manifest.ts';

function pathOf(stateDir: string, release: string): string {
  // The release ID is schema-checked ([0-9A-Za-z._-]{1,64}: no `/`), and the `.json` suffix
  // makes even `.` or `..` a plain file name.
  return join(stateFile(stateDir, 'manifests'), `${release}.json`);
}

export async function stageManifest(stateDir: string, manifest: ReleaseManifest): Promise<void> {
  await ensureDirectory(stateFile(stateDir, 'manifests'), 0o700);
  await writeFileAtomic(
    pathOf(stateDir, manifest.release),
    `${JSON.stringify(manifest, null, 2)}\n`,
    0o600,
  );
}

/** The staged manifest of `release`, or undefined (none staged, or not a manifest of it). */
export async function stagedManifest(
  stateDir: string,
  release: string,
): Promise<ReleaseManifest | undefined> {
  const raw = await readIfExists(pathOf(stateDir, release));
  if (raw === undefined) return undefined;
  const manifest = parseJsonWith(raw, releaseManifestSchema);
  return manifest?.release === release ? manifest : undefined;
}
