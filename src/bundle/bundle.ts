// The offline bundle (OFFLINE-01): one file holding what a release needs on a host: the release
// manifest, the installer (`oac-node.gz`, the manifest's node program) and the node files, each
// one checked against the manifest. An install from a bundle needs Core for enrollment and
// readiness only. The manifest is trusted as the bundle's maker took it from the console (TLS,
// or the pin); on the host its release must be the one Core's configuration names, the installer
// the pasted line runs must have the command's SHA-256, the manifest the SHA-256 the command
// names (`oac-node bundle` prints it: the maker's word travels in the command, not the file),
// and every file the manifest's. Root checks all of it before anything changes and hands the
// manifest it checked to the node half, which never reads the bundle's own copy again: a bundle
// rewritten after the check fails the copy of the file that changed.
import { oacError } from '../messages.ts';
import { createHash } from 'node:crypto';
import { entryBytes, listEntries, sha256OfEntry } from '../host/bundle-file.ts';
import {
  releaseManifestSchema,
  type ReleaseFile,
  type ReleaseManifest,
} from '../net/release-manifest.ts';
import type { TarEntry } from '../host/tar-header.ts';

export const BUNDLE_MANIFEST = 'manifest.json';
/** The installer under a fixed name, so the pasted line can take it out with `tar -xOf`. */
export const BUNDLE_INSTALLER = 'oac-node.gz';
const MANIFEST_MAX_BYTES = 1024 * 1024;

export interface Bundle {
  /** An open descriptor of the bundle file (read by position only). */
  fd: number;
  /** How messages name it: its path on the host. */
  label: string;
  manifest: ReleaseManifest;
  /** SHA-256 of the manifest's bytes in the bundle (root's read; the node half gets the parsed
   *  manifest root checked, not these bytes). */
  manifestSha256: string;
  entries: ReadonlyMap<string, TarEntry>;
}

/** Lists the bundle and parses its manifest; one line (bundle_unreadable) for anything else. */
export async function readBundle(fd: number, size: number, label: string): Promise<Bundle> {
  const unreadable = (reason: string) => oacError('bundle_unreadable', { path: label, reason });
  const listed = await listEntries(fd, size);
  if (typeof listed === 'string') throw unreadable(listed);
  const entries = new Map(listed.map((e) => [e.name, e]));
  const manifestEntry = entries.get(BUNDLE_MANIFEST);
  if (manifestEntry === undefined) throw unreadable(`it holds no ${BUNDLE_MANIFEST}`);
  const bytes = await entryBytes(fd, manifestEntry, MANIFEST_MAX_BYTES);
  let json: unknown;
  try {
    json = bytes === undefined ? undefined : JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  const parsed = releaseManifestSchema.safeParse(json);
  if (!parsed.success || bytes === undefined)
    throw unreadable(`its ${BUNDLE_MANIFEST} is not a release manifest`);
  const manifestSha256 = createHash('sha256').update(bytes).digest('hex');
  return { fd, label, manifest: parsed.data, manifestSha256, entries };
}

/** The node half's view: the entries of the descriptor root handed over, and the manifest root
 *  checked (from the request), never the bundle's own copy read again. */
export async function bundleFromRoot(
  fd: number,
  size: number,
  label: string,
  manifest: ReleaseManifest,
): Promise<Bundle> {
  const listed = await listEntries(fd, size);
  if (typeof listed === 'string')
    throw oacError('bundle_unreadable', { path: label, reason: listed });
  return {
    fd,
    label,
    manifest,
    manifestSha256: '',
    entries: new Map(listed.map((e) => [e.name, e])),
  };
}

/** The node program (the installer), under its bundle name. */
export function installerFile(manifest: ReleaseManifest): ReleaseFile {
  const file = manifest.files.find((f) => f.kind === 'node-program');
  if (file === undefined)
    throw oacError('manifest_invalid', { detail: 'it lists no node program' });
  return file;
}

/** What an install of `provider` takes from a release: the Runtime image, and for
 *  microsandbox its three files too. */
export function filesFor(
  manifest: ReleaseManifest,
  provider: 'docker' | 'microsandbox',
): ReleaseFile[] {
  return manifest.files.filter(
    (f) => f.kind === 'runtime-image' || (provider === 'microsandbox' && f.provider === provider),
  );
}

/** The entry that holds `file` (the node program's is `oac-node.gz`). */
export function entryOf(bundle: Bundle, file: ReleaseFile): TarEntry | undefined {
  return bundle.entries.get(file.kind === 'node-program' ? BUNDLE_INSTALLER : file.name);
}

/**
 * Before anything changes: the bundle is of the release Core's configuration names, and holds
 * every file an install of `provider` takes, each of the manifest's size and SHA-256.
 */
export async function verifyBundle(
  bundle: Bundle,
  expected: { manifestSha256: string; release: string },
  provider: 'docker' | 'microsandbox',
): Promise<void> {
  const { manifest, label } = bundle;
  const { release } = expected;
  if (bundle.manifestSha256 !== expected.manifestSha256)
    throw oacError('bundle_manifest_mismatch', { path: label });
  if (manifest.release !== release)
    throw oacError('bundle_other_release', {
      path: label,
      theirs: manifest.release,
      ours: release,
    });
  for (const file of [installerFile(manifest), ...filesFor(manifest, provider)]) {
    const entry = entryOf(bundle, file);
    if (entry === undefined)
      throw oacError('bundle_incomplete', { path: label, file: file.name, provider });
    if (entry.size !== file.size || (await sha256OfEntry(bundle.fd, entry)) !== file.sha256)
      throw oacError('bundle_damaged', { path: label, file: file.name });
  }
}
