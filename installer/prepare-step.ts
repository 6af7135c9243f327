// HOST-08: everything but the account, the group and the unit runs as oac-node, in its own
// session without a terminal: this step starts `oac-node _prepare` that way (setpriv to the
// node's UID, its group and the provider group; a new session; stdin a pipe that carries the
// request, token included). Its probe is the same child in dry-run mode, so the plan (and a
// rerun's "unchanged") reflects each of the child's own resources.
import { OacError } from '../src/errors.ts';
import type { Action, Step } from '../src/engine/step.ts';
import type { EngineEvent } from '../src/engine/events.ts';
import { isSea } from 'node:sea';
import { selfCommand } from '../src/host/self.ts';
import { programPath } from './program.ts';
import type { PrepareRequest } from '../src/agent/prepare-request.ts';
import {
  DOCKER_SOCKET,
  NODE_DIRS,
  NODE_HOME,
  NODE_UID,
  STORE_DIR,
  stateDir,
  type InstallContext,
} from './context.ts';

interface ChildRun {
  events: EngineEvent[];
  fresh?: boolean;
}

export const prepareStep: Step<InstallContext, ChildRun> = {
  id: 'prepare',
  title: 'Node files, Runtime image, network and registration (as oac-node)',
  async probe(ctx) {
    // Before the program is installed (a dry run on a new host) there is nothing of the node
    // yet to ask about, and no copy oac-node may run: everything would be created.
    const installed = await ctx.host.lstat(programPath(ctx.options.installationId));
    if (isSea() && installed === undefined) return { events: [], fresh: true };
    return runChild(ctx, true, () => undefined);
  },
  plan(_ctx, { events, fresh }) {
    if (fresh === true)
      return {
        kind: 'create',
        detail: 'node state, files, Runtime image, network and registration (as oac-node)',
      };
    const planned = events.flatMap((e) => (e.type === 'step-plan' ? [e.action] : []));
    const changing = planned.filter(
      (a) => a.kind !== 'unchanged' && a.kind !== 'skip' && a.kind !== 'keep',
    );
    if (changing.length === 0)
      return { kind: 'unchanged', detail: 'node state, program, image, network and registration' };
    return {
      kind: 'update',
      detail: changing.map((a: Action) => `${a.kind} ${a.detail}`).join('; '),
    };
  },
  async apply(ctx) {
    // HOST-05: the oac-node half's resources are recorded too, intent first, so that uninstall
    // removes exactly them.
    const id = ctx.options.installationId;
    const resources = childResources(id, ctx.configuration?.provider ?? 'docker');
    for (const [key, r] of Object.entries(resources)) await ctx.journal.intend(key, r.kind, r.name);
    await recordCheckpointRoot(ctx);
    const parents = await intendNodeDirs(ctx);
    const { events } = await runChild(ctx, false, ctx.emit);
    for (const [key, path] of parents) {
      if ((await ctx.host.lstat(path)) === undefined) continue;
      await ctx.journal.record(key, {
        kind: 'directory',
        name: path,
        ownership: 'owned',
        detail: {},
      });
    }
    for (const event of events) {
      if (event.type !== 'step-done') continue;
      const entry = Object.entries(resources).find(([, r]) => r.step === event.step);
      if (entry === undefined) continue;
      const [key, r] = entry;
      const known = ctx.journal.get(key)?.ownership;
      if (event.result.outcome === 'created' || known === 'intended' || known === 'owned') {
        await ctx.journal.record(key, {
          kind: r.kind,
          name: r.name,
          ownership: 'owned',
          detail: {},
        });
      }
    }
    return { outcome: 'updated', detail: 'node prepared as oac-node' };
  },
};

/** The directories between the home and the node's trees (`.oac`, `.oac/nodes`) that this
 *  run is about to create: in an adopted home they are ours, and uninstall removes them once
 *  empty. One that was there before is not recorded. */
async function intendNodeDirs(ctx: InstallContext): Promise<Array<[string, string]>> {
  const mine: Array<[string, string]> = [];
  for (const [key, path] of NODE_DIRS) {
    const recorded = ctx.journal.get(key)?.ownership;
    if (recorded === 'owned' || recorded === 'adopted') continue;
    if (recorded === undefined && (await ctx.host.lstat(path)) !== undefined) continue;
    await ctx.journal.intend(key, 'directory', path);
    mine.push([key, path]);
  }
  return mine;
}

/** HOST-11: the shared checkpoint store the operator mounted is recorded as adopted (never
 *  removed); without --checkpoint-root the node-local one inside the store is used. */
async function recordCheckpointRoot(ctx: InstallContext): Promise<void> {
  const path = ctx.options.checkpointRoot;
  if (path === undefined) {
    if (ctx.journal.get('checkpoint-root') !== undefined)
      await ctx.journal.forget('checkpoint-root');
    return;
  }
  await ctx.journal.record('checkpoint-root', {
    kind: 'directory',
    name: path,
    ownership: 'adopted',
    detail: { shared: true },
  });
}

/** What `_prepare` creates, by the child's step IDs, as the journal records it. */
function childResources(installationId: string, provider: 'docker' | 'microsandbox') {
  const state = { step: 'state', kind: 'directory' as const, name: stateDir(installationId) };
  if (provider === 'microsandbox')
    return { state, store: { step: 'store', kind: 'directory' as const, name: STORE_DIR } };
  const network = {
    step: 'network',
    kind: 'docker-network' as const,
    name: `oac-node-${installationId}`,
  };
  return { state, network };
}

async function runChild(
  ctx: InstallContext,
  dryRun: boolean,
  emit: (e: EngineEvent) => void,
): Promise<ChildRun> {
  const group = ctx.providerGroup;
  const configuration = ctx.configuration;
  if (group === undefined || configuration === undefined)
    throw new Error('prepare runs after preflight');
  // Before the account exists (a dry run on a new host) its UID is still the one it will get.
  const ids = ctx.nodeIds ?? { uid: NODE_UID, gid: NODE_UID };
  const origin = new URL(ctx.options.coreUrl).origin;
  const request: PrepareRequest = {
    installation_id: ctx.options.installationId,
    core_url: origin,
    console_url: origin,
    name: ctx.options.name,
    token: dryRun ? null : (ctx.token ?? null),
    configuration,
    state_dir: ctx.host.path(stateDir(ctx.options.installationId)),
    store_dir: ctx.host.path(STORE_DIR),
    checkpoint_root:
      ctx.options.checkpointRoot === undefined ? null : ctx.host.path(ctx.options.checkpointRoot),
    docker_host: `unix://${ctx.host.path(DOCKER_SOCKET)}`,
    proxy_env: ctx.options.proxyEnv,
    dry_run: dryRun,
  };
  // The installed program (readable by oac-node), not root's private copy; tsx in development.
  const self = isSea()
    ? { command: ctx.host.path(programPath(ctx.options.installationId)), args: ['_prepare'] }
    : selfCommand(['_prepare']);
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
    env: { ...ctx.options.proxyEnv, HOME: ctx.host.path(NODE_HOME) },
    newSession: true,
    timeoutMs: 60 * 60_000,
  });
  const events = parseEvents(result.stdout);
  events.forEach(emit);
  const failed = events.find((e) => e.type === 'step-failed');
  if (failed?.type === 'step-failed') throw new OacError(failed.code, failed.message);
  if (result.exitCode !== 0)
    throw new OacError(
      'prepare_failed',
      `Preparing the node as oac-node failed: ${lastLine(result.stderr)}`,
    );
  return { events };
}

function parseEvents(stdout: string): EngineEvent[] {
  return stdout.split('\n').flatMap((line) => {
    try {
      return line.trim() === '' ? [] : [JSON.parse(line) as EngineEvent];
    } catch {
      return [];
    }
  });
}

/** The child's own words: its first lines (an internal error's message comes before its stack). */
function lastLine(text: string): string {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^\s+at /.test(l));
  return lines.slice(0, 3).join(' / ') || 'no output';
}
