// HOST-08: everything but root's resources (account, group, home, program, env file, unit,
// service) runs as oac-node,
// in its own session without a terminal: `oac-node _prepare` started with setpriv (the node's
// UID, its group and the provider group; no_new_privs and no capabilities, SEC-08), its request
// (token included) on stdin, its events read and rendered as it prints them (OPS-01); an
// interrupted install stops its whole process group (OPS-03). Its probe is
// the same child in dry-run mode, so the plan (and a rerun's "unchanged") reflects each of the
// child's own steps. What of its work can be removed (state, network, store) is listed as
// resources of their own; this one is never recorded and never removed.
import { isSea } from 'node:sea';
import type { PrepareRequest } from '../../agent/prepare-request.ts';
import { OacError } from '../../errors.ts';
import { readPasswd } from '../../host/accounts.ts';
import { selfCommand } from '../../host/self.ts';
import { DOCKER_SOCKET, NODE_HOME, NODE_UID, NODE_USER } from '../../layout.ts';
import type { NodeConfiguration } from '../../net/core-schemas.ts';
import { KEYS } from '../desired.ts';
import type { Driver, DriverContext } from '../driver.ts';
import { NO_PRIVILEGES } from './as-node.ts';
import { PROGRESS_PHASES, type EngineEvent } from '../events.ts';
import { interruptedError } from '../interrupted.ts';
import { MESSAGES, hint, message, type MessageCode } from '../../messages.ts';
import { ACTION_KINDS, OUTCOMES, changes, type Action } from '../step.ts';
import * as z from 'zod';
import type { Bundle } from '../../bundle/bundle.ts';

/** The bundle's descriptor in the node half: the first after stdin, stdout and stderr. */
const BUNDLE_CHILD_FD = 3;

export interface NodeHalfInputs {
  coreUrl: string;
  corePin?: string | null;
  name: string;
  token: string | undefined;
  configuration: NodeConfiguration;
  providerGroup: { name: string; gid: number };
  checkpointRoot?: string;
  proxyEnv: Record<string, string>;
  /** OFFLINE-01: the node half reads the release from this bundle (its descriptor, as fd 3). */
  bundle?: Bundle;
  /** OFFLINE-01: only stage the bundle's release for the running node's rollout. */
  stage?: boolean;
}

export interface NodeHalfActual {
  /** The child's plans; undefined before the program is installed (a dry run on a new host). */
  planned: Action[] | undefined;
}

export const nodeHalfDriver: Driver<'node', NodeHalfActual> = {
  async probe(_r, ctx) {
    // Before the program is installed there is nothing of the node yet to ask about, and no
    // copy oac-node may run: everything would be created.
    if (isSea() && (await ctx.host.lstat(ctx.layout.program)) === undefined)
      return { planned: undefined };
    const events = await runChild(ctx, true, () => undefined);
    return { planned: events.flatMap((e) => (e.type === 'step-plan' ? [e.action] : [])) };
  },
  exists: () => true,
  diff(_r, { planned }, earlier) {
    // A new program is installed first and prepares the node; the installed (older) program
    // answered this probe, so its plan is not the one that will run (DECL-03).
    const program = earlier.get(KEYS.program);
    if (program !== undefined && changes(program) && planned !== undefined)
      return {
        kind: 'update',
        detail: 'node state, files, image, network and registration, checked by the new program',
      };
    if (planned === undefined)
      return {
        kind: 'create',
        detail: 'node state, files, Runtime image, network and registration (as oac-node)',
      };
    const changing = planned.filter(changes);
    if (changing.length === 0)
      return { kind: 'unchanged', detail: 'node state, program, image, network and registration' };
    return { kind: 'update', detail: changing.map((a) => `${a.kind} ${a.detail}`).join('; ') };
  },
  async apply(_r, _action, _actual, ctx) {
    await runChild(ctx, false, ctx.emit);
    return { outcome: 'updated', detail: 'node prepared as oac-node' };
  },
  remove: () => Promise.resolve({ outcome: 'skipped', detail: 'the node half' }),
};

/** OFFLINE-01: the node half stages a bundle's release (install, when the node serves an older
 *  generation than Core's); its plan, or what it did. */
export async function stageRelease(ctx: DriverContext, dryRun: boolean): Promise<Action[]> {
  const events = await runChild(ctx, dryRun, dryRun ? () => undefined : ctx.emit);
  return events.flatMap((e) => (e.type === 'step-plan' ? [e.action] : []));
}

async function runChild(
  ctx: DriverContext,
  dryRun: boolean,
  emit: (e: EngineEvent) => void,
): Promise<EngineEvent[]> {
  const { host, layout, node } = ctx;
  if (node === undefined) throw new Error('the node half runs only in an install');
  // Before the account exists (a dry run on a new host) its IDs are still the ones it will get.
  const user = (await readPasswd(host)).find((u) => u.name === NODE_USER);
  const ids = user ?? { uid: NODE_UID, gid: NODE_UID };
  const request: PrepareRequest = {
    installation_id: layout.id,
    core_url: node.coreUrl,
    core_pin: node.corePin ?? null,
    console_url: node.coreUrl,
    name: node.name,
    token: dryRun ? null : (node.token ?? null),
    configuration: node.configuration,
    state_dir: host.path(layout.stateDir),
    store_dir: host.path(layout.store),
    checkpoint_root: node.checkpointRoot === undefined ? null : host.path(node.checkpointRoot),
    docker_host: `unix://${host.path(DOCKER_SOCKET)}`,
    proxy_env: node.proxyEnv,
    bundle:
      node.bundle === undefined
        ? null
        : { fd: BUNDLE_CHILD_FD, label: node.bundle.label, manifest: node.bundle.manifest },
    stage: node.stage === true,
    dry_run: dryRun,
  };
  // The installed program (readable by oac-node), not root's private copy; tsx in development.
  const self = isSea()
    ? { command: host.path(layout.program), args: ['_prepare'] }
    : selfCommand(['_prepare']);
  const setpriv = ['--reuid', String(ids.uid), '--regid', String(ids.gid), ...NO_PRIVILEGES];
  setpriv.push('--groups', String(node.providerGroup.gid), '--', self.command, ...self.args);
  const events: EngineEvent[] = [];
  // OPS-01: each event is rendered as the child prints it, not after it exits.
  const result = await host.runStreaming('setpriv', setpriv, {
    input: `${JSON.stringify(request)}\n`,
    env: { ...node.proxyEnv, HOME: host.path(NODE_HOME) },
    ...(node.bundle === undefined ? {} : { fds: [node.bundle.fd] }),
    signal: ctx.signal,
    onLine: (line) => {
      const event = parseEvent(line);
      if (event === undefined) return;
      // Kept: what root reads afterwards (the plan, a failure); progress only passes through,
      // so a child that floods lines cannot grow root's memory.
      if (event.type === 'step-plan' || event.type === 'step-failed') events.push(event);
      // Named as the node half's own (`node:files`): root has steps of the same names (the
      // state directory), and a child's outcome must not pass for root's on the screen.
      emit({ ...event, step: `node:${event.step}` });
    },
  });
  if (ctx.signal?.aborted === true) throw interruptedError(ctx.signal);
  const failed = events.find((e) => e.type === 'step-failed');
  // OPS-02: the child's code and hint reach the screen and --json as root's own would.
  if (failed?.type === 'step-failed')
    throw new OacError(failed.code, failed.message, { hint: trustedHint(failed) });
  if (result.exitCode !== 0)
    throw new OacError(
      'prepare_failed',
      message('prepare_failed', { detail: firstLines(result.stderr) }),
      { hint: hint('prepare_failed') },
    );
  return events;
}

// The child runs as oac-node: what it prints is parsed with a schema before root passes it on
// (SEC-04), bounded in length; anything else is dropped.
const text = z.string().max(2000);
const step = z.string().regex(/^[a-z0-9:._/-]{1,64}$/);
const childEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('step-start'), step, title: text }),
  z.object({
    type: z.literal('step-plan'),
    step,
    action: z.object({ kind: z.enum(ACTION_KINDS), detail: text }),
  }),
  z.object({
    type: z.literal('step-done'),
    step,
    result: z.object({ outcome: z.enum(OUTCOMES), detail: text }),
  }),
  z.object({
    type: z.literal('step-failed'),
    step,
    code: z.string().regex(/^[a-z0-9_]{1,64}$/),
    message: text,
    hint: text.optional(),
  }),
  z.object({
    type: z.literal('progress'),
    step,
    file: text,
    received: z.number().nonnegative(),
    total: z.number().nonnegative(),
    phase: z.enum(PROGRESS_PHASES).optional(),
  }),
  z.object({ type: z.literal('note'), step, message: text }),
]);

/** The hint of a known code is root's own (the child runs as oac-node, which on microsandbox
 *  is not root's equal: its words must not become root's advice), unless the hint names values
 *  only the child knows (placeholders); an unknown code gets none. */
function trustedHint(failed: { code: string; hint?: string }): string | undefined {
  if (!(failed.code in MESSAGES)) return undefined;
  const own = hint(failed.code as MessageCode);
  return own !== undefined && !own.includes('{') ? own : failed.hint;
}

function parseEvent(line: string): EngineEvent | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed = childEvent.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The child's own words: its first lines (an internal error's message comes before its stack). */
function firstLines(text: string): string {
  const lines = text
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^\s+at /.test(l));
  return lines.slice(0, 3).join(' / ') || 'no output';
}
