// The Runtime image in Docker, made by the node half (HOST-07, HOST-08): downloaded (resumed,
// verified against the manifest), loaded, its archive deleted (DL-06); an image Docker already
// has with the release's ID is not downloaded (DL-05). Never removed: uninstall keeps images
// (UNI-04) and names the command that removes one.
import { z } from 'zod';
import { installRuntimeImage } from '../node-files.ts';
import { DockerApi } from '../../net/docker-api.ts';
import type { Driver } from '../../resources/driver.ts';
import { prepareOf, type NodeContext } from './node-context.ts';
import { defineKind } from '../../resources/kind.ts';
import { DOCKER_IMAGE_RESOURCE } from '../../resources/resources.ts';

/** What the probe finds: whether Docker holds the image under one of its IDs. */
const DOCKER_IMAGE_ACTUAL = z.strictObject({ present: z.boolean() });

export const dockerImageDriver: Driver<
  'docker-image',
  z.infer<typeof DOCKER_IMAGE_ACTUAL>,
  NodeContext
> = {
  async probe(r, { host }) {
    const docker = new DockerApi(`unix://${host.path(r.socket)}`);
    try {
      const id = await docker.imageId(r.reference);
      return { present: id !== undefined && r.ids.includes(id) };
    } finally {
      await docker.close();
    }
  },
  exists: (a) => a.present,
  diff: (r, { present }) =>
    present
      ? { kind: 'unchanged', detail: `image ${r.reference}` }
      : { kind: 'create', detail: `download ${r.file} and load ${r.reference}` },
  async apply(r, _action, _actual, ctx) {
    const { run, filesDir } = prepareOf(ctx);
    const reference = await installRuntimeImage(run, filesDir, r.key);
    return { outcome: 'created', detail: `image ${reference}` };
  },
  remove: (r) => Promise.resolve({ outcome: 'kept', detail: `image ${r.reference}` }),
};

/** The Runtime image in Docker as a kind (src/resources/kind.ts): the node half's, unrecorded. */
export const dockerImageKind = defineKind({
  kind: 'docker-image',
  desired: DOCKER_IMAGE_RESOURCE,
  recorded: false,
  driver: dockerImageDriver,
  actual: DOCKER_IMAGE_ACTUAL,
  name: (r) => `image ${r.reference}`,
});
