// `oac-node bundle` (OFFLINE-01): on any machine that reaches the console, no root needed. Reads
// the release manifest, downloads the installer and the node files (resumable, each verified
// against the manifest as it arrives: src/net/download.ts), then writes them as one bundle,
// hashing each again as it goes in. It prints the SHA-256 of the manifest, which the host's
// command carries (the bundle is trusted through it), and of the bundle, to check the copy.
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { ownWorkDirectory, removeTree, writeBundle } from '../host/bundle-file.ts';
import { sha256File, writeFileAtomic } from '../host/files.ts';
import { oacError } from '../messages.ts';
import { manifestBytes } from '../net/manifest-bytes.ts';
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
  /** The run's events (issue #39): a step per file downloaded and one for the bundle written,
   *  with each download's progress, as an install's steps are (src/cli/bundle-output.ts draws
   *  them on a terminal, or as lines on a pipe). */
  emit: (event: BundleEvent) => void;
  /** The steps, told once the manifest names the files and before the first download. */
  onPlan?: (steps: Array<{ id: string; title: string }>) => void;
}

/** What a bundle's run says, in the engine's event shapes (docs/automation.md), which its
 *  renderers take as they are. */
export type BundleEvent =
  | { type: 'step-start'; step: string; title: string; phase: string }
  | {
      type: 'progress';
      step: string;
      file: string;
      received: number;
      total: number;
      phase?: 'start' | 'resuming' | 'restarting' | 'done';
    }
  | { type: 'step-done'; step: string; result: { outcome: 'created'; detail: string } };

/** The step that writes the bundle itself. */
export const WRITE_STEP = 'write';

export interface MadeBundle {
  path: string;
  release: string;
  files: number;
  bytes: number;
  sha256: string;
  manifestSha256: string;
}

export async function makeBundle(req: MakeBundleRequest): Promise<MadeBundle> {
  const env = proxyEnvFrom(process.env);
  const { manifest, bytes } = await manifestBytes(
    req.consoleUrl,
    req.release,
    sharedDispatcher(env),
  );
  const wanted: ReleaseFile[] = [
    installerFile(manifest),
    ...(req.provider === undefined
      ? manifest.files.filter((f) => f.kind !== 'node-program')
      : filesFor(manifest, req.provider)),
  ];
  // Beside the bundle, kept after a failure: a rerun resumes every download where it stopped.
  const work = join(dirname(req.out), `.${basename(req.out)}.parts`);
  const owned = await ownWorkDirectory(work);
  if (owned !== 'ok') throw oacError('bundle_work_unsafe', { path: work, reason: owned });
  req.onPlan?.([
    ...wanted.map((f) => ({ id: f.name, title: `Download ${f.name}` })),
    { id: WRITE_STEP, title: `Write ${req.out}` },
  ]);
  for (const file of wanted) {
    const step = file.name;
    req.emit({ type: 'step-start', step, title: `Download ${file.name}`, phase: step });
    await downloadFile({
      url: new URL(`/node-files/${manifest.release}/${file.name}`, req.consoleUrl),
      dest: join(work, file.name),
      size: file.size,
      sha256: file.sha256,
      dispatcher: sharedDispatcher(env),
      onProgress: (p) => {
        if (p.phase === 'verifying') return;
        const received = p.phase === 'resuming' ? p.resumedFrom : p.received;
        const moved = {
          type: 'progress' as const,
          step,
          file: file.name,
          received,
          total: file.size,
        };
        req.emit(p.phase === 'progress' ? moved : { ...moved, phase: p.phase });
      },
    });
    req.emit({
      type: 'step-done',
      step,
      result: { outcome: 'created', detail: `${step}, verified` },
    });
  }
  req.emit({ type: 'step-start', step: WRITE_STEP, title: `Write ${req.out}`, phase: WRITE_STEP });
  // The console's bytes as they are: their SHA-256 is what the host's command names.
  const manifestPath = join(work, BUNDLE_MANIFEST);
  await writeFileAtomic(manifestPath, bytes, 0o600);
  const manifestSha256 = createHash('sha256').update(bytes).digest('hex');
  const entries = [
    { name: BUNDLE_MANIFEST, path: manifestPath, sha256: manifestSha256 },
    ...wanted.map((f) => ({
      name: f.kind === 'node-program' ? BUNDLE_INSTALLER : f.name,
      path: join(work, f.name),
      sha256: f.sha256,
    })),
  ];
  const mtime = Math.floor(Date.parse(manifest.created_at) / 1000);
  const size = await writeBundle(req.out, entries, Number.isFinite(mtime) ? mtime : 0);
  await removeTree(work);
  req.emit({
    type: 'step-done',
    step: WRITE_STEP,
    result: { outcome: 'created', detail: `${req.out}, ${wanted.length + 1} entries` },
  });
  return {
    path: req.out,
    release: manifest.release,
    files: wanted.length,
    bytes: size,
    sha256: await sha256File(req.out),
    manifestSha256,
  };
}
