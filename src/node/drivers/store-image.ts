// The Runtime image imported into the microsandbox store (HOST-04), by the node half: the
// archive downloaded (verified), unpacked into the store's images directory, checked to hold an
// OCI layout, then deleted (DL-06). It goes with the store.
import { z } from 'zod';
import { join } from 'node:path';
import { downloadNodeFile, runtimeImageFile } from '../node-files.ts';
import { oacError } from '../../messages.ts';
import { removeTree, unpackTarGz } from '../../host/archive.ts';
import { lstatIfExists, removeFile } from '../../host/files.ts';
import type { Driver } from '../../resources/driver.ts';
import { prepareOf, type NodeContext } from './node-context.ts';
import { defineKind } from '../../resources/kind.ts';
import { STORE_IMAGE_RESOURCE } from '../../resources/resources.ts';

/** What the probe finds: whether the store holds the image. */
const STORE_IMAGE_ACTUAL = z.strictObject({ present: z.boolean() });

export const storeImageDriver: Driver<
  'store-image',
  z.infer<typeof STORE_IMAGE_ACTUAL>,
  NodeContext
> = {
  async probe(r, { host }) {
    return { present: (await lstatIfExists(host.path(join(r.dir, 'index.json')))) !== undefined };
  },
  exists: (a) => a.present,
  diff: (r, { present }) =>
    present
      ? { kind: 'unchanged', detail: `image ${r.reference} in ${r.dir}` }
      : { kind: 'create', detail: `download ${r.file} and import ${r.reference}` },
  async apply(r, _action, _actual, ctx) {
    const { run, manifest, filesDir } = prepareOf(ctx);
    const file = runtimeImageFile(manifest);
    const archive = join(filesDir, file.name);
    await downloadNodeFile(run, file, archive, r.key);
    const dest = ctx.host.path(r.dir);
    await removeTree(dest); // a half import of a killed run: it has no index.json
    await unpackTarGz(archive, dest);
    if ((await lstatIfExists(join(dest, 'index.json'))) === undefined) {
      await removeTree(dest);
      throw oacError('store_image_invalid', { file: file.name });
    }
    await removeFile(archive);
    return { outcome: 'created', detail: `image ${r.reference} in ${r.dir}` };
  },
  remove: (r) =>
    Promise.resolve({ outcome: 'skipped', detail: `image ${r.reference} (goes with the store)` }),
};

/** The image in the microsandbox store as a kind (src/resources/kind.ts): unrecorded. */
export const storeImageKind = defineKind({
  kind: 'store-image',
  desired: STORE_IMAGE_RESOURCE,
  recorded: false,
  driver: storeImageDriver,
  actual: STORE_IMAGE_ACTUAL,
  name: (r) => `image ${r.reference}`,
});
