// The microsandbox half of the node's files: where they go (the files directory, the store
// /var/lib/oac-node/.oac/m/ with its runtime home and node-local checkpoint store: HOST-04,
// HOST-11) and the provider file's adapter. What the node half makes is in node-desired.ts.
import { join } from 'node:path';
import { importedImageDir, storeDirs } from '../layout.ts';
import { oacError } from '../messages.ts';
import type { ReleaseFile, ReleaseManifest } from '../net/release-manifest.ts';
import { runtimeImageFile } from './node-files.ts';
import { preparePaths, type PrepareContext } from './prepare-context.ts';
import type { PrepareRequest } from './prepare-request.ts';

export type MicrosandboxKind =
  'microsandbox-runtime' | 'microsandbox-firmware' | 'microsandbox-helper';
export const MICROSANDBOX_KINDS: readonly MicrosandboxKind[] = [
  'microsandbox-runtime',
  'microsandbox-firmware',
  'microsandbox-helper',
];

export function storePaths(req: PrepareRequest) {
  const store = req.store_dir;
  const dirs = storeDirs(store);
  return {
    store,
    images: dirs.images,
    runtimeHome: dirs.runtimeHome,
    checkpoints: req.checkpoint_root ?? dirs.checkpoints,
  };
}

export function fileOf(manifest: ReleaseManifest, kind: MicrosandboxKind): ReleaseFile {
  const file = manifest.files.find((f) => f.kind === kind);
  if (file === undefined)
    throw oacError('manifest_invalid', { detail: `it lists no ${kind} file` });
  return file;
}

export function filePath({ req, manifest }: PrepareContext, kind: MicrosandboxKind): string {
  return join(preparePaths(req).files, fileOf(manifest, kind).name);
}

/** Where the release's Runtime image is imported in the store. */
export function storeImageDir(req: PrepareRequest, manifest: ReleaseManifest): string {
  return importedImageDir(req.store_dir, runtimeImageFile(manifest).image.id);
}

function sizeOf(specification: Record<string, unknown>, key: string): number {
  const value = specification[key];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 1;
}

/** The provider file's microsandbox adapter (the guide's fields, plus HOST-11's store). */
export function microsandboxAdapter(ctx: PrepareContext) {
  const { manifest } = ctx;
  const spec = ctx.req.configuration.specification;
  const paths = storePaths(ctx.req);
  return {
    helper_path: filePath(ctx, 'microsandbox-helper'),
    runtime_path: filePath(ctx, 'microsandbox-runtime'),
    firmware_path: filePath(ctx, 'microsandbox-firmware'),
    runtime_sha256: fileOf(manifest, 'microsandbox-runtime').sha256,
    firmware_sha256: fileOf(manifest, 'microsandbox-firmware').sha256,
    image: runtimeImageFile(manifest).image.reference,
    cpus: sizeOf(spec, 'cpus'),
    memory_mib: sizeOf(spec, 'memory_mib'),
    root_disk_mib: sizeOf(spec, 'root_disk_mib'),
    environment_disk_mib: sizeOf(spec, 'environment_disk_mib'),
    network: spec.network === 'none' ? ('none' as const) : ('public' as const),
    runtime_home: paths.runtimeHome,
    checkpoint_root: paths.checkpoints,
  };
}
