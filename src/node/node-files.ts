// The node files of a release, fetched from the console (which may redirect to the release) and
// checked against the manifest (DL-01), through one proxy-aware dispatcher (DL-04).
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Emit, ProgressPhase } from '../core/events.ts';
import { oacError } from '../messages.ts';
import { readStream } from '../host/files.ts';
import { removeFile } from '../host/files.ts';
import { sharedDispatcher, type RoutingDispatcher } from '../net/dispatcher.ts';
import { DockerApi, dockerStopped } from '../net/docker-api.ts';
import { downloadFile } from '../net/download.ts';
import { noteReceived } from '../net/download-memory.ts';
import { sendJson } from '../net/http-json.ts';
import {
  releaseManifestSchema,
  type ReleaseFile,
  type ReleaseManifest,
} from '../net/release-manifest.ts';
import type { NodeConfiguration } from '../net/core-schemas.ts';
import type { PrepareRequest } from './prepare-request.ts';
import { entryOf, type Bundle } from '../bundle/bundle.ts';
import { copyEntry } from '../host/bundle-file.ts';

type RuntimeImageFile = Extract<ReleaseFile, { kind: 'runtime-image' }>;

/** The proxy-aware dispatcher for these proxy settings (DL-04). */
export function dispatcherFor(proxyEnv: Record<string, string>): RoutingDispatcher {
  return sharedDispatcher(proxyEnv);
}

export function releaseOf(configuration: NodeConfiguration): string {
  const release = configuration.specification.release;
  if (typeof release !== 'string' || !/^[0-9A-Za-z._-]{1,64}$/.test(release)) {
    throw oacError('release_unknown');
  }
  return release;
}

export async function fetchManifest(
  consoleUrl: string,
  configuration: NodeConfiguration,
  proxyEnv: Record<string, string>,
  signal?: AbortSignal,
): Promise<ReleaseManifest> {
  return fetchReleaseManifest(consoleUrl, releaseOf(configuration), proxyEnv, signal);
}

/** The manifest of `release`, from the console. */
export async function fetchReleaseManifest(
  consoleUrl: string,
  release: string,
  proxyEnv: Record<string, string>,
  signal?: AbortSignal,
): Promise<ReleaseManifest> {
  const url = new URL(`/node-files/${release}/manifest.json`, consoleUrl);
  const dispatcher = dispatcherFor(proxyEnv);
  const response = await sendJson({ method: 'GET', url, dispatcher, signal });
  if (response.status !== 200) {
    throw oacError('manifest_unavailable', {
      release,
      status: response.status,
      path: url.pathname,
    });
  }
  const parsed = releaseManifestSchema.safeParse(response.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const detail = `${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim();
    throw oacError('manifest_invalid', { detail });
  }
  return parsed.data;
}

export function runtimeImageFile(manifest: ReleaseManifest): RuntimeImageFile {
  const file = manifest.files.find((f): f is RuntimeImageFile => f.kind === 'runtime-image');
  if (file === undefined)
    throw oacError('manifest_invalid', { detail: 'it lists no Runtime image' });
  return file;
}

/** What a node file's download needs from the run: the request, the manifest, where its
 *  events go and the run's signal (OPS-03: an interrupted run keeps the part file). */
export interface NodeFileRun {
  req: PrepareRequest;
  manifest: ReleaseManifest;
  /** OFFLINE-01: the files come from this bundle instead of the console. */
  bundle?: Bundle;
  emit: Emit;
  signal?: AbortSignal;
}

/** Downloads (or resumes, or reuses) one node file of the release into `dest`, verified against
 *  the manifest (DL-01, DL-02), with live progress under `step` (OPS-01): its start (or
 *  `Resuming …` from where an earlier run stopped), its bytes, and its verified end. */
export async function downloadNodeFile(
  run: NodeFileRun,
  file: ReleaseFile,
  dest: string,
  step: string,
): Promise<void> {
  const { req, manifest, emit, signal } = run;
  const url = new URL(`/node-files/${manifest.release}/${file.name}`, req.console_url);
  const progress = (phase: ProgressPhase | undefined, received: number) =>
    emit({ type: 'progress', step, file: file.name, received, total: file.size, phase });
  if (run.bundle !== undefined) return copyFromBundle(run.bundle, file, dest, progress);
  try {
    await downloadFile({
      url,
      dest,
      size: file.size,
      sha256: file.sha256,
      dispatcher: dispatcherFor(req.proxy_env),
      signal,
      onProgress: (p) => {
        if (p.phase === 'verifying') return;
        if (p.phase === 'resuming') return progress('resuming', p.resumedFrom);
        progress(p.phase === 'progress' ? undefined : p.phase, p.received);
      },
    });
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  }
}

/** OFFLINE-01: the file out of the bundle, verified against the manifest as it is copied. */
async function copyFromBundle(
  bundle: Bundle,
  file: ReleaseFile,
  dest: string,
  progress: (phase: ProgressPhase | undefined, received: number) => void,
): Promise<void> {
  const entry = entryOf(bundle, file);
  if (entry === undefined || entry.size !== file.size)
    throw oacError('bundle_damaged', { path: bundle.label, file: file.name });
  const found = await copyEntry(bundle.fd, entry, dest, file.sha256, (p) => {
    if (p.phase === 'reused' || p.phase === 'done') progress('done', p.received);
    else progress(p.phase === 'start' ? 'start' : undefined, p.received);
  });
  if (found !== undefined)
    throw oacError('bundle_damaged', { path: bundle.label, file: file.name });
}

/** Downloads (or resumes, or reuses) the image archive, loads it, deletes the archive (DL-06). */
export async function installRuntimeImage(
  run: NodeFileRun,
  filesDir: string,
  step: string,
): Promise<string> {
  const { req, manifest } = run;
  const file = runtimeImageFile(manifest);
  const dest = join(filesDir, file.name);
  await downloadNodeFile(run, file, dest, step);
  const docker = new DockerApi(req.docker_host);
  try {
    // In bytes, one piece ahead (Readable.from would keep 16 pieces, 16 MiB, in object mode).
    const pieces = { objectMode: false, highWaterMark: LOAD_PIECE_BYTES };
    const archive = Readable.from(counted(readStream(dest, LOAD_PIECE_BYTES)), pieces);
    await docker.loadImage(archive).catch((error: unknown) => {
      throw dockerStopped(error);
    });
    const id = await docker.imageId(file.image.reference);
    if (id === undefined || (id !== file.image.id && id !== file.image.manifest_digest)) {
      const { reference, id: expected } = file.image;
      throw oacError('image_mismatch', { reference, actual: id ?? 'none', expected });
    }
  } finally {
    await docker.close();
  }
  await removeFile(dest);
  return file.image.reference;
}

/** Issue #41: the archive goes to Docker in 256 KiB pieces. With Node's 64 KiB ones a 1 GiB
 *  load took about 15 % longer than `docker load -i` of the same file; with larger ones, about
 *  as long (bench/README.md). 1 MiB pieces took the node half over 100 MB. */
const LOAD_PIECE_BYTES = 256 * 1024;

/** The archive on its way to Docker, counted as a download's bytes are: its read buffers are
 *  freed as early (src/net/download-memory.ts), or a 1 GiB load would hold far more than one. */
async function* counted(stream: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const chunk of stream) {
    noteReceived(chunk.length);
    yield chunk;
  }
}
