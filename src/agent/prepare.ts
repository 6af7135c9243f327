// `oac-node _prepare`: the install work that runs as oac-node, in its own session without a
// terminal (HOST-08): the state directory, the provider's half (Docker: the Runtime image and
// the network; microsandbox: its files, store and imported image), the provider file, and
// registration. Each is a step of the same engine; events go to stdout as NDJSON for the
// installer to render.
import { runSteps, type RunReport } from '../engine/runner.ts';
import type { Emit } from '../engine/events.ts';
import type { Step } from '../engine/step.ts';
import { OacError } from '../errors.ts';
import { hint, message } from '../messages.ts';
import { ensureDirectory, lstatIfExists, readIfExists, writeFileAtomic } from '../host/files.ts';
import { redactor } from '../ui/redact.ts';
import { isRegistered, loadIdentity } from './identity-store.ts';
import { registerNode } from './register.ts';
import { dockerSteps } from './prepare-docker.ts';
import { microsandboxSteps } from './prepare-microsandbox.ts';
import { providerFileText } from './provider-file-text.ts';
import { preparePaths, type PrepareContext, type PrepareStep } from './prepare-context.ts';
import type { PrepareRequest } from './prepare-request.ts';

export { networkName } from './prepare-context.ts';

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
    await ensureDirectory(preparePaths(req).files, 0o700);
    return { outcome: 'created', detail: req.state_dir };
  },
};

interface ProviderFileActual {
  current: string | undefined;
  registered: boolean;
}

const providerFileStep: Step<PrepareContext, ProviderFileActual> = {
  id: 'provider-file',
  title: 'Provider file',
  async probe(ctx) {
    const path = preparePaths(ctx.req).providerFile;
    const current = (await readIfExists(path))?.toString('utf8');
    const identity = await loadIdentity(ctx.req.state_dir);
    const registered = identity !== undefined && isRegistered(identity);
    // The registered node's file is what Core approved (NODE-05): a rerun that would write
    // another one changes nothing and says why (RERUN-02).
    if (registered && current !== undefined && current !== providerFileText(ctx)) {
      throw new OacError('provider_file_changed', message('provider_file_changed', { path }), {
        hint: hint('provider_file_changed'),
      });
    }
    return { current, registered };
  },
  plan(ctx, { current }) {
    const path = preparePaths(ctx.req).providerFile;
    if (current === undefined) return { kind: 'create', detail: `write ${path}` };
    return current === providerFileText(ctx)
      ? { kind: 'unchanged', detail: path }
      : { kind: 'replace', detail: `replace ${path}` };
  },
  async apply(ctx, action) {
    const path = preparePaths(ctx.req).providerFile;
    await writeFileAtomic(path, providerFileText(ctx), 0o600);
    return { outcome: action.kind === 'create' ? 'created' : 'replaced', detail: path };
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
      configPath: preparePaths(req).providerFile,
      stateDir: req.state_dir,
      coreUrl: req.core_url,
      name: req.name,
      token: req.token ?? undefined,
      managed: true,
    });
    return { outcome: 'created', detail: `node ${identity.node_id}` };
  },
};

export function prepareSteps(provider: 'docker' | 'microsandbox'): PrepareStep[] {
  return [
    stateStep as PrepareStep,
    ...(provider === 'docker' ? dockerSteps : microsandboxSteps),
    providerFileStep as PrepareStep,
    registerStep as PrepareStep,
  ];
}

export async function prepare(req: PrepareRequest, emit: Emit, dryRun = false): Promise<RunReport> {
  if (req.token !== null) redactor.add(req.token);
  const ctx: PrepareContext = { req, emit };
  return runSteps(prepareSteps(req.configuration.provider), ctx, { dryRun, emit });
}
