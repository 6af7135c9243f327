// The microsandbox half of `_prepare`, as oac-node (HOST-08): the provider files (Runtime,
// firmware, helper) verified into the node's files directory; the store
// /var/lib/oac-node/.oac/m/ with its runtime home and node-local checkpoint store (HOST-04,
// HOST-11); and the Runtime image imported into the store, its archive deleted after (DL-06).
import { join } from 'node:path';
import type { Step } from '../engine/step.ts';
import { OacError } from '../errors.ts';
import { removeTree, unpackTarGz } from '../host/archive.ts';
import {
  canWriteDirectory,
  ensureDirectory,
  isExecutableFile,
  lstatIfExists,
  removeFile,
  setMode,
  sha256FileIfExists,
} from '../host/files.ts';
import type { ReleaseFile, ReleaseManifest } from '../net/release-manifest.ts';
import { downloadNodeFile, runtimeImageFile } from './node-files.ts';
import {
  knownManifest,
  manifestOf,
  preparePaths,
  type PrepareContext,
  type PrepareStep,
} from './prepare-context.ts';
import type { PrepareRequest } from './prepare-request.ts';

type Kind = 'microsandbox-runtime' | 'microsandbox-firmware' | 'microsandbox-helper';
const KINDS: readonly Kind[] = [
  'microsandbox-runtime',
  'microsandbox-firmware',
  'microsandbox-helper',
];

export function storePaths(req: PrepareRequest) {
  const store = req.store_dir;
  return {
    store,
    images: join(store, 'images'),
    runtimeHome: join(store, 'run'),
    checkpoints: req.checkpoint_root ?? join(store, 'checkpoints'),
  };
}

function fileOf(manifest: ReleaseManifest, kind: Kind): ReleaseFile {
  const file = manifest.files.find((f) => f.kind === kind);
  if (file === undefined)
    throw new OacError('manifest_invalid', `The release manifest lists no ${kind} file`);
  return file;
}

function filePath(ctx: PrepareContext, kind: Kind): string {
  return join(preparePaths(ctx.req).files, fileOf(knownManifest(ctx), kind).name);
}

const filesStep: Step<PrepareContext, Kind[]> = {
  id: 'provider-files',
  title: 'microsandbox Runtime, firmware and helper',
  async probe(ctx) {
    const manifest = await manifestOf(ctx);
    const missing: Kind[] = [];
    for (const kind of KINDS) {
      const path = join(preparePaths(ctx.req).files, fileOf(manifest, kind).name);
      const good = (await sha256FileIfExists(path)) === fileOf(manifest, kind).sha256;
      const runnable = kind !== 'microsandbox-helper' || (await isExecutableFile(path));
      if (!good || !runnable) missing.push(kind);
    }
    return missing;
  },
  plan(ctx, missing) {
    if (missing.length === 0)
      return { kind: 'unchanged', detail: 'microsandbox Runtime, firmware and helper verified' };
    const names = missing.map((k) => fileOf(knownManifest(ctx), k).name);
    return { kind: 'create', detail: `download ${names.join(', ')}` };
  },
  async apply(ctx, _action, missing) {
    const manifest = knownManifest(ctx);
    for (const kind of missing) {
      const path = filePath(ctx, kind);
      await downloadNodeFile(
        ctx.req,
        manifest,
        fileOf(manifest, kind),
        path,
        'provider-files',
        ctx.emit,
      );
      // Verified first, executable second: a helper never runs before its SHA-256 matched.
      await setMode(path, kind === 'microsandbox-helper' ? 0o700 : 0o600);
    }
    return { outcome: 'created', detail: `${missing.length} of 3 files downloaded and verified` };
  },
};

const storeStep: Step<PrepareContext, string[]> = {
  id: 'store',
  title: 'microsandbox store',
  async probe({ req }) {
    const paths = storePaths(req);
    if (req.checkpoint_root !== null && !(await canWriteDirectory(req.checkpoint_root))) {
      throw new OacError(
        'checkpoint_root_unwritable',
        `The checkpoint store ${req.checkpoint_root} is not a directory oac-node can write; mount it and give oac-node (UID 65532) access, then run the command again`,
      );
    }
    const wanted = [paths.store, paths.images, paths.runtimeHome];
    if (req.checkpoint_root === null) wanted.push(paths.checkpoints);
    const missing: string[] = [];
    for (const dir of wanted) if ((await lstatIfExists(dir)) === undefined) missing.push(dir);
    return missing;
  },
  plan: ({ req }, missing) =>
    missing.length === 0
      ? { kind: 'unchanged', detail: storePaths(req).store }
      : { kind: 'create', detail: `create ${missing.join(', ')} (0700)` },
  async apply(_ctx, _action, missing) {
    for (const dir of missing) await ensureDirectory(dir, 0o700);
    return { outcome: 'created', detail: missing.join(', ') };
  },
};

function imageDir(ctx: PrepareContext): string {
  const image = runtimeImageFile(knownManifest(ctx)).image;
  return join(storePaths(ctx.req).images, image.id.replace(/^sha256:/, ''));
}

const storeImageStep: Step<PrepareContext, boolean> = {
  id: 'runtime',
  title: 'Runtime image in the microsandbox store',
  async probe(ctx) {
    await manifestOf(ctx);
    return (await lstatIfExists(join(imageDir(ctx), 'index.json'))) !== undefined;
  },
  plan(ctx, present) {
    const image = runtimeImageFile(knownManifest(ctx));
    return present
      ? { kind: 'unchanged', detail: `image ${image.image.reference} in ${imageDir(ctx)}` }
      : {
          kind: 'create',
          detail: `download ${image.name} (${image.size} bytes) and import ${image.image.reference}`,
        };
  },
  async apply(ctx) {
    const manifest = knownManifest(ctx);
    const file = runtimeImageFile(manifest);
    const archive = join(preparePaths(ctx.req).files, file.name);
    await downloadNodeFile(ctx.req, manifest, file, archive, 'runtime', ctx.emit);
    const dest = imageDir(ctx);
    await removeTree(dest); // a half import of a killed run: it has no index.json
    await unpackTarGz(archive, dest);
    if ((await lstatIfExists(join(dest, 'index.json'))) === undefined) {
      await removeTree(dest);
      throw new OacError('image_mismatch', `${file.name} holds no OCI image layout (index.json)`);
    }
    await removeFile(archive);
    return { outcome: 'created', detail: `image ${file.image.reference} in ${dest}` };
  },
};

export const microsandboxSteps = [filesStep, storeStep, storeImageStep] as PrepareStep[];

function sizeOf(specification: Record<string, unknown>, key: string): number {
  const value = specification[key];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 1;
}

/** The provider file's microsandbox adapter (the guide's fields, plus HOST-11's store). */
export function microsandboxAdapter(ctx: PrepareContext) {
  const manifest = knownManifest(ctx);
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
