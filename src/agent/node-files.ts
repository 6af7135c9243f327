// The node files of a release, fetched from the console (which may redirect to the release) and
// checked against the manifest (DL-01), through one proxy-aware dispatcher (DL-04).
import { join } from 'node:path';
import type { Emit } from '../engine/events.ts';
import { OacError } from '../errors.ts';
import { readStream } from '../host/files.ts';
import { removeFile } from '../host/files.ts';
import { sharedDispatcher, type RoutingDispatcher } from '../net/dispatcher.ts';
import { DockerApi } from '../net/docker-api.ts';
import { downloadFile } from '../net/download.ts';
import { sendJson } from '../net/http-json.ts';
import {
  releaseManifestSchema,
  type ReleaseFile,
  type ReleaseManifest,
} from '../net/release-manifest.ts';
import type { NodeConfiguration } from '../net/core-schemas.ts';
import type { PrepareRequest } from './prepare-request.ts';

type RuntimeImageFile = Extract<ReleaseFile, { kind: 'runtime-image' }>;

/** The proxy-aware dispatcher for these proxy settings (DL-04). */
export function dispatcherFor(proxyEnv: Record<string, string>): RoutingDispatcher {
  return sharedDispatcher(proxyEnv);
}

export function releaseOf(configuration: NodeConfiguration): string {
  const release = configuration.specification.release;
  if (typeof release !== 'string' || !/^[0-9A-Za-z._-]{1,64}$/.test(release)) {
    throw new OacError(
      'release_unknown',
      "Core's sandbox configuration names no release this console serves",
    );
  }
  return release;
}

export async function fetchManifest(
  consoleUrl: string,
  configuration: NodeConfiguration,
  proxyEnv: Record<string, string>,
): Promise<ReleaseManifest> {
  const release = releaseOf(configuration);
  const url = new URL(`/node-files/${release}/manifest.json`, consoleUrl);
  const response = await sendJson({ method: 'GET', url, dispatcher: dispatcherFor(proxyEnv) });
  if (response.status !== 200) {
    throw new OacError(
      'manifest_unavailable',
      `This console has no node files for release ${release} (HTTP ${response.status} for ${url.pathname})`,
    );
  }
  const parsed = releaseManifestSchema.safeParse(response.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OacError(
      'manifest_invalid',
      `The release manifest is invalid: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
    );
  }
  return parsed.data;
}

export function runtimeImageFile(manifest: ReleaseManifest): RuntimeImageFile {
  const file = manifest.files.find((f): f is RuntimeImageFile => f.kind === 'runtime-image');
  if (file === undefined)
    throw new OacError('manifest_invalid', 'The release manifest lists no Runtime image');
  return file;
}

/** Downloads (or resumes, or reuses) one node file of the release into `dest`, verified against
 *  the manifest (DL-01, DL-02), with progress and `Resuming …` notes under `step`. */
export async function downloadNodeFile(
  req: PrepareRequest,
  manifest: ReleaseManifest,
  file: ReleaseFile,
  dest: string,
  step: string,
  emit: Emit,
): Promise<void> {
  const url = new URL(`/node-files/${manifest.release}/${file.name}`, req.console_url);
  await downloadFile({
    url,
    dest,
    size: file.size,
    sha256: file.sha256,
    dispatcher: dispatcherFor(req.proxy_env),
    onProgress: (p) => {
      if (p.phase === 'resuming')
        emit({ type: 'note', step, message: `Resuming ${file.name} at ${p.resumedFrom} bytes` });
      if (p.phase === 'restarting')
        emit({
          type: 'note',
          step,
          message: `${file.name}: the server cannot resume; starting again`,
        });
      emit({ type: 'progress', step, file: file.name, received: p.received, total: p.total });
    },
  });
}

/** Downloads (or resumes, or reuses) the image archive, loads it, deletes the archive (DL-06). */
export async function installRuntimeImage(
  req: PrepareRequest,
  manifest: ReleaseManifest,
  filesDir: string,
  emit: Emit,
): Promise<string> {
  const file = runtimeImageFile(manifest);
  const dest = join(filesDir, file.name);
  await downloadNodeFile(req, manifest, file, dest, 'runtime', emit);
  const docker = new DockerApi(req.docker_host);
  try {
    await docker.loadImage(readStream(dest));
    const id = await docker.imageId(file.image.reference);
    if (id !== file.image.id && id !== file.image.manifest_digest) {
      throw new OacError(
        'image_mismatch',
        `Docker loaded ${file.image.reference} with ID ${id ?? 'none'}, not the release's ${file.image.id}`,
      );
    }
  } finally {
    await docker.close();
  }
  await removeFile(dest);
  return file.image.reference;
}
