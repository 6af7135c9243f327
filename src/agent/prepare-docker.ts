// The Docker half of `_prepare`: the Runtime image (downloaded and loaded unless Docker already
// has it: DL-05) and the network `oac-node-<id>` (HOST-07), both as oac-node (HOST-08).
import { join } from 'node:path';
import type { Step } from '../engine/step.ts';
import { DockerApi } from '../net/docker-api.ts';
import { NETWORK_LABEL } from '../layout.ts';
import { installRuntimeImage, runtimeImageFile } from './node-files.ts';
import {
  knownManifest,
  manifestOf,
  networkName,
  preparePaths,
  type PrepareContext,
  type PrepareStep,
} from './prepare-context.ts';

async function withDocker<T>(host: string, use: (docker: DockerApi) => Promise<T>): Promise<T> {
  const docker = new DockerApi(host);
  try {
    return await use(docker);
  } finally {
    await docker.close();
  }
}

const runtimeStep: Step<PrepareContext, { present: boolean }> = {
  id: 'runtime',
  title: 'Runtime image',
  async probe(ctx) {
    const image = runtimeImageFile(await manifestOf(ctx));
    // DL-05: the exact image already in Docker (loaded by hand on a slow link) is not fetched.
    const id = await withDocker(ctx.req.docker_host, (d) => d.imageId(image.image.reference));
    return { present: id === image.image.id || id === image.image.manifest_digest };
  },
  plan(ctx, { present }) {
    const image = runtimeImageFile(knownManifest(ctx));
    return present
      ? { kind: 'unchanged', detail: `image ${image.image.reference}` }
      : {
          kind: 'create',
          detail: `download ${image.name} (${image.size} bytes) and load ${image.image.reference}`,
        };
  },
  async apply(ctx) {
    const files = preparePaths(ctx.req).files;
    const reference = await installRuntimeImage(ctx.req, knownManifest(ctx), files, ctx.emit);
    return { outcome: 'created', detail: `image ${reference}` };
  },
};

const networkStep: Step<PrepareContext, boolean> = {
  id: 'network',
  title: 'Docker network',
  probe: ({ req }) =>
    withDocker(req.docker_host, (d) => d.networkExists(networkName(req.installation_id))),
  plan: ({ req }, exists) =>
    exists
      ? { kind: 'unchanged', detail: `network ${networkName(req.installation_id)}` }
      : { kind: 'create', detail: `create network ${networkName(req.installation_id)}` },
  async apply({ req }) {
    const name = networkName(req.installation_id);
    await withDocker(req.docker_host, (d) =>
      d.createNetwork(name, { [NETWORK_LABEL]: req.installation_id }),
    );
    return { outcome: 'created', detail: `network ${name}` };
  },
};

export const dockerSteps = [runtimeStep, networkStep] as PrepareStep[];

/** The provider file's Docker adapter (the guide's fields). */
export function dockerAdapter(ctx: PrepareContext) {
  const { req } = ctx;
  return {
    host: req.docker_host,
    image: runtimeImageFile(knownManifest(ctx)).image.reference,
    network: networkName(req.installation_id),
    extra_hosts: [],
    seccomp_file: join(req.state_dir, 'seccomp.json'),
    nested_sandbox: false,
  };
}
