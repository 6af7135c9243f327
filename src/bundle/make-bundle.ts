// `oac-node bundle` (OFFLINE-01): on any machine that reaches the console, no root needed. Reads
// the release manifest, downloads the installer and the node files (resumable, each verified
// against the manifest as it arrives: src/net/download.ts), then writes them as one bundle whose
// SHA-256 it prints, so the operator can check the copy on the host.
import { basename, dirname, join } from 'node:path';
import { fetchReleaseManifest } from '../agent/node-files.ts';
import { ensureDirectory, sha256File, writeFileAtomic } from '../host/files.ts';
import { removeTree, writeBundle } from '../host/bundle-file.ts';
import { sharedDispatcher } from '../net/dispatcher.ts';
import { downloadFile } from '../net/download.ts';
import { proxyEnvFrom } from '../net/proxy-env.ts';
import type { ReleaseFile } from '../net/release-manifest.ts';
import { BUNDLE_INSTALLER, BUNDLE_MANIFEST, filesFor, installerFile } from './bundle.ts';

export interface MakeBundleRequest {
  consoleUrl: string;
  release: string;
  out: string;
  /** Only what this provider's nodes take; default every file of the release. */
  provider?: 'docker' | 'microsandbox';
  log: (line: string) => void;
}

export interface MadeBundle {
  path: string;
  release: string;
  files: number;
  bytes: number;
  sha256: string;
}

export async function makeBundle(req: MakeBundleRequest): Promise<MadeBundle> {
  const env = proxyEnvFrom(process.env);
  const manifest = await fetchReleaseManifest(req.consoleUrl, req.release, env);
  const wanted: ReleaseFile[] = [
    installerFile(manifest),
    ...(req.provider === undefined
      ? manifest.files.filter((f) => f.kind !== 'node-program')
      : filesFor(manifest, req.provider)),
  ];
  // Beside the bundle, kept after a failure: a rerun resumes every download where it stopped.
  const work = join(dirname(req.out), `.${basename(req.out)}.parts`);
  await ensureDirectory(work, 0o700);
  for (const file of wanted) {
    req.log(`Downloading ${file.name} (${file.size} bytes)`);
    await downloadFile({
      url: new URL(`/node-files/${manifest.release}/${file.name}`, req.consoleUrl),
      dest: join(work, file.name),
      size: file.size,
      sha256: file.sha256,
      dispatcher: sharedDispatcher(env),
    });
  }
  const manifestPath = join(work, BUNDLE_MANIFEST);
  await writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`, 0o644);
  const entries = [
    { name: BUNDLE_MANIFEST, path: manifestPath },
    ...wanted.map((f) => ({
      name: f.kind === 'node-program' ? BUNDLE_INSTALLER : f.name,
      path: join(work, f.name),
    })),
  ];
  const mtime = Math.floor(Date.parse(manifest.created_at) / 1000);
  const bytes = await writeBundle(req.out, entries, Number.isFinite(mtime) ? mtime : 0);
  await removeTree(work);
  return {
    path: req.out,
    release: manifest.release,
    files: wanted.length,
    bytes,
    sha256: await sha256File(req.out),
  };
}
