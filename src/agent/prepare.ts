// `oac-node _prepare`: the install work that runs as oac-node, in its own session without a
// terminal (HOST-08): the state directory, the node files from the release, the Runtime image, the Docker network, the
// provider file, and registration. Each is a step of the same engine; events go to stdout as
// NDJSON for the installer to render.
import { join } from 'node:path';
import { runSteps, type RunReport } from '../engine/runner.ts';
import type { Emit } from '../engine/events.ts';
import type { Step } from '../engine/step.ts';
import { ensureDirectory, lstatIfExists, readIfExists, writeFileAtomic } from '../host/files.ts';
import { DockerApi } from '../net/docker-api.ts';
import type { ReleaseManifest } from '../net/release-manifest.ts';
import { redactor } from '../ui/redact.ts';
import { isRegistered, loadIdentity } from './identity-store.ts';
import { registerNode } from './register.ts';
import { fetchManifest, installRuntimeImage, runtimeImageFile } from './node-files.ts';
import type { PrepareRequest } from './prepare-request.ts';

export interface PrepareContext {
  req: PrepareRequest;
  emit: Emit;
  manifest?: ReleaseManifest;
}

const paths = (req: PrepareRequest) => ({
  providerFile: join(req.state_dir, 'provider.json'),
  files: join(req.state_dir, 'files'),
});

export function networkName(installationId: string): string {
  return `oac-node-${installationId}`;
}

const stateStep: Step<PrepareContext, boolean> = {
  id: 'state',
  title: 'Node state directory',
  probe: async ({ req }) => (await lstatIfExists(req.state_dir)) !== undefined,
  plan: ({ req }, exists) =>
    exists
      ? { kind: 'unchanged', detail: req.state_dir }
      : { kind: 'create', detail: `create ${req.state_dir} (0700)` },
  async apply({ req }) {
    await ensureDirectory(req.state_dir, 0o700);
    await ensureDirectory(paths(req).files, 0o700);
    return { outcome: 'created', detail: req.state_dir };
  },
};

const runtimeStep: Step<PrepareContext, { present: boolean }> = {
  id: 'runtime',
  title: 'Runtime image',
  async probe(ctx) {
    ctx.manifest ??= await fetchManifest(
      ctx.req.console_url,
      ctx.req.configuration,
      ctx.req.proxy_env,
    );
    const image = runtimeImageFile(ctx.manifest);
    const docker = new DockerApi(ctx.req.docker_host);
    try {
      // DL-05: the exact image already in Docker (loaded by hand on a slow link) is not fetched.
      const id = await docker.imageId(image.image.reference);
      return { present: id === image.image.id || id === image.image.manifest_digest };
    } finally {
      await docker.close();
    }
  },
  plan(ctx, { present }) {
    const image = runtimeImageFile(ctx.manifest as ReleaseManifest);
    return present
      ? { kind: 'unchanged', detail: `image ${image.image.reference}` }
      : {
          kind: 'create',
          detail: `download ${image.name} (${image.size} bytes) and load ${image.image.reference}`,
        };
  },
  async apply(ctx) {
    const reference = await installRuntimeImage(
      ctx.req,
      ctx.manifest as ReleaseManifest,
      paths(ctx.req).files,
      ctx.emit,
    );
    return { outcome: 'created', detail: `image ${reference}` };
  },
};

const networkStep: Step<PrepareContext, boolean> = {
  id: 'network',
  title: 'Docker network',
  async probe({ req }) {
    const docker = new DockerApi(req.docker_host);
    try {
      return await docker.networkExists(networkName(req.installation_id));
    } finally {
      await docker.close();
    }
  },
  plan: ({ req }, exists) =>
    exists
      ? { kind: 'unchanged', detail: `network ${networkName(req.installation_id)}` }
      : { kind: 'create', detail: `create network ${networkName(req.installation_id)}` },
  async apply({ req }) {
    const docker = new DockerApi(req.docker_host);
    try {
      await docker.createNetwork(networkName(req.installation_id), {
        'oac-node.installation': req.installation_id,
      });
    } finally {
      await docker.close();
    }
    return { outcome: 'created', detail: `network ${networkName(req.installation_id)}` };
  },
};

function providerFileText(ctx: PrepareContext): string {
  const { req } = ctx;
  const config = req.configuration;
  const image = runtimeImageFile(ctx.manifest as ReleaseManifest);
  const adapter = {
    host: req.docker_host,
    image: image.image.reference,
    network: networkName(req.installation_id),
    extra_hosts: [],
    seccomp_file: join(req.state_dir, 'seccomp.json'),
    nested_sandbox: false,
  };
  const file = {
    provider: config.provider,
    installation_id: config.installation_id,
    core_url: config.core_url,
    generation: config.generation,
    specification: config.specification,
    adapter,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

const providerFileStep: Step<PrepareContext, string | undefined> = {
  id: 'provider-file',
  title: 'Provider file',
  probe: async ({ req }) => (await readIfExists(paths(req).providerFile))?.toString('utf8'),
  plan(ctx, current) {
    const wanted = providerFileText(ctx);
    if (current === undefined)
      return { kind: 'create', detail: `write ${paths(ctx.req).providerFile}` };
    return current === wanted
      ? { kind: 'unchanged', detail: paths(ctx.req).providerFile }
      : { kind: 'replace', detail: `replace ${paths(ctx.req).providerFile}` };
  },
  async apply(ctx, action) {
    await writeFileAtomic(paths(ctx.req).providerFile, providerFileText(ctx), 0o600);
    return {
      outcome: action.kind === 'create' ? 'created' : 'replaced',
      detail: paths(ctx.req).providerFile,
    };
  },
};

const registerStep: Step<PrepareContext, boolean> = {
  id: 'enroll',
  title: 'Register with Core',
  probe: async ({ req }) => {
    const identity = await loadIdentity(req.state_dir);
    return identity !== undefined && isRegistered(identity);
  },
  plan: ({ req }, registered) =>
    registered
      ? { kind: 'unchanged', detail: `registered with ${req.core_url}` }
      : { kind: 'create', detail: `register with ${req.core_url}` },
  async apply({ req }) {
    const { identity } = await registerNode({
      configPath: paths(req).providerFile,
      stateDir: req.state_dir,
      coreUrl: req.core_url,
      name: req.name,
      token: req.token ?? undefined,
      managed: true,
    });
    return { outcome: 'created', detail: `node ${identity.node_id}` };
  },
};

export function prepareSteps(
  provider: 'docker' | 'microsandbox',
): Array<Step<PrepareContext, never>> {
  const steps: Array<Step<PrepareContext, never>> = [stateStep] as Array<
    Step<PrepareContext, never>
  >;
  if (provider === 'docker')
    steps.push(
      runtimeStep as Step<PrepareContext, never>,
      networkStep as Step<PrepareContext, never>,
    );
  steps.push(
    providerFileStep as Step<PrepareContext, never>,
    registerStep as Step<PrepareContext, never>,
  );
  return steps;
}

export async function prepare(req: PrepareRequest, emit: Emit, dryRun = false): Promise<RunReport> {
  if (req.token !== null) redactor.add(req.token);
  const ctx: PrepareContext = { req, emit };
  return runSteps(prepareSteps(req.configuration.provider), ctx, { dryRun, emit });
}
