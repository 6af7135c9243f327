// HOST-08: everything but the account, the group and the unit runs as oac-node, in its own
// session without a terminal: this step starts `oac-node _prepare` that way (setpriv to the
// node's UID, its group and the provider group; a new session; stdin a pipe that carries the
// request, token included) and renders the events it prints.
import { OacError } from '../src/errors.ts';
import type { Step } from '../src/engine/step.ts';
import type { EngineEvent } from '../src/engine/events.ts';
import { selfCommand } from '../src/host/self.ts';
import type { PrepareRequest } from '../src/agent/prepare-request.ts';
import { DOCKER_SOCKET, stateDir, type InstallContext } from './context.ts';

export const prepareStep: Step<InstallContext, undefined> = {
  id: 'prepare',
  title: 'Node files, Runtime image, network and registration (as oac-node)',
  probe: async () => undefined,
  // The child plans and reports each of its own resources; this step always runs it.
  plan: (ctx) => ({
    kind: 'update',
    detail: `prepare ${stateDir(ctx.options.installationId)} as oac-node`,
  }),
  async apply(ctx) {
    const ids = ctx.nodeIds;
    const group = ctx.providerGroup;
    const configuration = ctx.configuration;
    if (ids === undefined || group === undefined || configuration === undefined)
      throw new Error('prepare runs after preflight and the account');
    const request: PrepareRequest = {
      installation_id: ctx.options.installationId,
      core_url: new URL(ctx.options.coreUrl).origin,
      console_url: new URL(ctx.options.coreUrl).origin,
      name: ctx.options.name,
      token: ctx.token ?? null,
      configuration,
      state_dir: ctx.host.path(stateDir(ctx.options.installationId)),
      docker_host: `unix://${ctx.host.path(DOCKER_SOCKET)}`,
      proxy_env: ctx.options.proxyEnv,
    };
    const self = selfCommand(['_prepare']);
    const setpriv = [
      '--reuid',
      String(ids.uid),
      '--regid',
      String(ids.gid),
      '--groups',
      String(group.gid),
      '--',
      self.command,
      ...self.args,
    ];
    const result = await ctx.host.run('setpriv', setpriv, {
      input: `${JSON.stringify(request)}\n`,
      env: { ...ctx.options.proxyEnv, HOME: ctx.host.path('/var/lib/oac-node') },
      newSession: true,
      timeoutMs: 60 * 60_000,
    });
    const failure = forwardEvents(result.stdout, ctx.emit);
    if (result.exitCode !== 0) {
      if (failure !== undefined) throw new OacError(failure.code, failure.message);
      throw new OacError(
        'prepare_failed',
        `Preparing the node as oac-node failed: ${lastLine(result.stderr)}`,
      );
    }
    return { outcome: 'updated', detail: 'node prepared' };
  },
};

function forwardEvents(
  stdout: string,
  emit: (e: EngineEvent) => void,
): { code: string; message: string } | undefined {
  let failure;
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    let event: EngineEvent;
    try {
      event = JSON.parse(line) as EngineEvent;
    } catch {
      continue;
    }
    emit(event);
    if (event.type === 'step-failed') failure = { code: event.code, message: event.message };
  }
  return failure;
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? 'no output';
}
