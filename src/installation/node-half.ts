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
import type { PrepareRequest } from '../node/prepare-request.ts';
import { OacError } from '../errors.ts';
import { readPasswd } from '../host/accounts.ts';
import { selfCommand } from '../host/self.ts';
import { DOCKER_SOCKET, NODE_HOME, NODE_UID, NODE_USER } from '../layout.ts';
import { KEYS } from './desired.ts';
import type { Driver } from '../resources/driver.ts';
import type { InstallContext, NodeHalfInputs } from './root-context.ts';
import { NO_PRIVILEGES } from '../resources/drivers/as-node.ts';
import { ENGINE_EVENTS, type EngineEvent } from '../core/events.ts';
import { refusalError } from '../resources/refusal-error.ts';
import { MESSAGES, hint, oacError, type MessageCode } from '../messages.ts';
import {
  ACTION,
  ACTION_PART,
  PLANNED_ACTION,
  REFUSAL,
  STEP_RESULT,
  changes,
  type Action,
  type ActionPart,
} from '../core/step.ts';
import { firstInstallSteps } from './node-half-first.ts';
import { startEarly, takeFor, type EarlyAnswer } from './early-answer.ts';
import * as z from 'zod';
import { defineKind } from '../resources/kind.ts';
import { NODE_HALF_RESOURCE } from '../resources/resources.ts';

/** A bound on what root keeps of the child's events (a few per resource in practice). */
const MAX_KEPT_EVENTS = 500;

/** The child's plan, step by step, titled by its step-start. */
function stepsOf(events: EngineEvent[]): ActionPart[] {
  const titles = new Map<string, string>();
  const steps: ActionPart[] = [];
  for (const e of events) {
    if (e.type === 'step-start') titles.set(e.step, e.title);
    if (e.type === 'step-plan')
      steps.push({ step: e.step, title: titles.get(e.step) ?? e.step, action: e.action });
  }
  return steps;
}

/** The bundle's descriptor in the node half: the first after stdin, stdout and stderr. */
const BUNDLE_CHILD_FD = 3;

export const NODE_HALF_ACTUAL = z.strictObject({
  /** The child's plans; undefined before the program is installed (a new host). */
  planned: z.array(PLANNED_ACTION).optional(),
  /** Before the program is installed: refusals root found in the node account's part itself. */
  refusals: z.array(REFUSAL).optional(),
  /** The same, step by step, with each step's title (status lists them). */
  steps: z.array(ACTION_PART).optional(),
});
export type NodeHalfActual = z.infer<typeof NODE_HALF_ACTUAL>;

export const nodeHalfDriver: Driver<'node', NodeHalfActual, InstallContext> = {
  // The child's start and its own probes take longer than all of root's together.
  probesLong: true,
  async probe(_r, ctx) {
    // Before the program is installed there is nothing of the node yet to ask about, and no
    // copy oac-node may run: everything would be created.
    if (isSea() && (await ctx.host.lstat(ctx.layout.program)) === undefined) {
      const part = ctx.node.part;
      if (part === undefined) return { planned: undefined };
      const steps = await firstInstallSteps(ctx, part, await nodeIds(ctx.host));
      return { planned: undefined, steps, refusals: steps.flatMap((s) => s.action.refusals ?? []) };
    }
    // A refused plan is the child's answer, not its failure: its refusals become root's.
    const events = (await earlyEvents(ctx)) ?? (await probeChild(ctx));
    const steps = stepsOf(events);
    return { planned: steps.map((s) => s.action), steps };
  },
  exists: () => true,
  diff(_r, actual, earlier) {
    const action = nodeStepAction(actual, earlier);
    // Issue #38: each step the node half plans comes to root as data, shown as a row of its
    // own (`node:<step>`) under this one; not on an upgrade, whose plan the installed (older)
    // program made: the new program plans again once it is in place, and the line says so.
    const shown = actual.steps !== undefined && !upgrading(actual, earlier);
    return shown ? { ...action, parts: actual.steps } : action;
  },
  async apply(_r, _action, _actual, ctx) {
    await runChild(ctx, false, ctx.emit);
    return { outcome: 'updated', detail: 'node prepared as oac-node' };
  },
  remove: () => Promise.resolve({ outcome: 'skipped', detail: 'the node half' }),
};

/** The child's dry run, as the node step's probe asks it. */
const probeChild = (ctx: InstallContext) =>
  runChild(ctx, true, () => undefined, { refusalsAnswer: true });

/** Issue #41: the node half's dry run, started in preflight as soon as its inputs are known
 *  (Core's configuration, the provider group), so that it runs beside the rest of preflight and
 *  root's own probes; the probe takes it only for the same request (./early-answer.ts). */
export type EarlyNodeProbe = EarlyAnswer<EngineEvent[]>;

/** Starts the node half's dry run early; undefined when there is no installed program to run
 *  yet (a new host: root plans the node's part itself), or when that cannot be told here (the
 *  node step's own probe then says why). */
export async function startEarlyProbe(ctx: InstallContext): Promise<EarlyNodeProbe | undefined> {
  const program = await ctx.host.lstat(ctx.layout.program).catch(() => null);
  if (program === null || (isSea() && program === undefined)) return undefined;
  return startEarly(requestKey(ctx), ctx.signal, (signal) => probeChild({ ...ctx, signal }));
}

/** The early dry run's events, when it was started for this very request. */
async function earlyEvents(ctx: InstallContext): Promise<EngineEvent[] | undefined> {
  const early = ctx.earlyNodeProbe;
  ctx.earlyNodeProbe = undefined;
  return (await takeFor(early, requestKey(ctx)))?.value;
}

/** All the child is given: its request, its groups and its environment. */
const requestKey = (ctx: InstallContext): string =>
  JSON.stringify([
    prepareRequest(ctx, { dryRun: true, mapped: true }),
    ctx.node.providerGroup.gid,
    ctx.node.proxyEnv,
  ]);

/** The node step's own action, from the node half's plan (or, before the program is installed,
 *  root's own plan of its part). */
function nodeStepAction(
  { planned, refusals: firstRefusals }: NodeHalfActual,
  earlier: ReadonlyMap<string, Action>,
): Action {
  // Refusals first: what the installed program refuses (or, before it is installed, what
  // root found) stops the run before anything is written, an upgrade included (the new
  // program would find the same host).
  const refusals = [...(planned ?? []).flatMap((a) => a.refusals ?? []), ...(firstRefusals ?? [])];
  if (refusals.length > 0)
    return {
      kind: 'refuse',
      detail: refusals.map((r) => r.message).join('; '),
      refusals,
    };
  // A new program is installed first and prepares the node; the installed (older) program
  // answered this probe, so its plan is not the one that will run (DECL-03).
  if (upgrading({ planned }, earlier))
    return {
      kind: 'update',
      detail:
        'node state, files, image, network and registration: planned by the new program once it is in place (the installed one is older; its plan is not shown)',
    };
  if (planned === undefined)
    return {
      kind: 'create',
      detail: 'node state, files, Runtime image, network and registration (as oac-node)',
    };
  const changing = planned.filter(changes);
  if (changing.length === 0)
    return { kind: 'unchanged', detail: 'node state, program, image, network and registration' };
  return { kind: 'update', detail: `${stepsChanging(changing.length)} (as oac-node)` };
}

/** How many of the node half's steps change, said as a line (each is a row of its own). */
export function stepsChanging(count: number): string {
  return count === 1 ? '1 step of the node half changes' : `${count} steps of the node half change`;
}

/** A new program replaces the installed one in this run (its plan is the new program's). */
function upgrading({ planned }: NodeHalfActual, earlier: ReadonlyMap<string, Action>): boolean {
  const program = earlier.get(KEYS.program);
  return program !== undefined && changes(program) && planned !== undefined;
}

/** OFFLINE-01: the node half stages a bundle's release (install, when the node serves an older
 *  generation than Core's: src/installation/staged-release.ts); its plan (a refused one as the
 *  answer, its refusals then root's plan data), or what it did. */
export async function stageRelease(ctx: InstallContext, dryRun: boolean): Promise<ActionPart[]> {
  const emit = dryRun ? () => undefined : ctx.emit;
  return stepsOf(await runChild(ctx, dryRun, emit, { refusalsAnswer: dryRun }));
}

/** The request root sends the node half. `mapped`: its paths as this host's (`--root`
 *  included), as the child gets them; otherwise the layout's, as the installation's desired
 *  value declares them (src/installation/desired.ts). The token only when the child applies. */
export function prepareRequest(
  ctx: Pick<InstallContext, 'host' | 'layout' | 'node'>,
  options: { dryRun: boolean; mapped: boolean },
): PrepareRequest {
  const { layout, node } = ctx;
  const path = (p: string) => (options.mapped ? ctx.host.path(p) : p);
  return {
    installation_id: layout.id,
    core_url: node.coreUrl,
    core_pin: node.corePin ?? null,
    console_url: node.coreUrl,
    name: node.name,
    token: options.dryRun ? null : (node.token ?? null),
    configuration: node.configuration,
    state_dir: path(layout.stateDir),
    store_dir: path(layout.store),
    checkpoint_root: node.checkpointRoot === undefined ? null : path(node.checkpointRoot),
    docker_host: `unix://${path(DOCKER_SOCKET)}`,
    proxy_env: node.proxyEnv,
    bundle:
      node.bundle === undefined
        ? null
        : { fd: BUNDLE_CHILD_FD, label: node.bundle.label, manifest: node.bundle.manifest },
    stage: node.stage === true,
    dry_run: options.dryRun,
    host_id: node.hostId ?? null,
    same_host: node.sameHost === true,
  };
}

/** The node account's IDs; before it exists (a new host), the ones it will get. */
async function nodeIds(host: InstallContext['host']): Promise<{ uid: number; gid: number }> {
  const user = (await readPasswd(host)).find((u) => u.name === NODE_USER);
  return user ?? { uid: NODE_UID, gid: NODE_UID };
}

async function runChild(
  ctx: InstallContext,
  dryRun: boolean,
  emit: (e: EngineEvent) => void,
  options: { refusalsAnswer?: boolean } = {},
): Promise<EngineEvent[]> {
  const { host, layout, node } = ctx;
  // Root's driver table holds this driver under root's context (src/installation/drivers.ts):
  // only an install's carries the node half's inputs, and only install plans this step.
  if ((node as NodeHalfInputs | undefined) === undefined)
    throw new Error('the node half runs only in an install (no node half inputs)');
  const ids = await nodeIds(host);
  const request = prepareRequest(ctx, { dryRun, mapped: true });
  // The installed program (readable by oac-node), not root's private copy; tsx in development.
  const self = isSea()
    ? { command: host.path(layout.program), args: ['_prepare'] }
    : selfCommand(['_prepare']);
  const setpriv = ['--reuid', String(ids.uid), '--regid', String(ids.gid), ...NO_PRIVILEGES];
  setpriv.push('--groups', String(node.providerGroup.gid), '--', self.command, ...self.args);
  const events: EngineEvent[] = [];
  let overflowed = false;
  // OPS-01: each event is rendered as the child prints it, not after it exits.
  const running = host.runStreaming('setpriv', setpriv, {
    input: `${JSON.stringify(request)}\n`,
    env: { ...node.proxyEnv, HOME: host.path(NODE_HOME) },
    ...(node.bundle === undefined ? {} : { fds: [node.bundle.fd] }),
    signal: ctx.signal,
    onLine: (line) => {
      const event = parseEvent(line);
      if (event === undefined) return;
      // Kept: what root reads afterwards (the plan, a failure); progress only passes through,
      // so a child that floods lines cannot grow root's memory.
      const kept = event.type === 'step-plan' || event.type === 'step-failed';
      if (kept || event.type === 'step-start') {
        // Past the bound nothing more is kept, and the answer is refused below (fail closed).
        if (events.length < MAX_KEPT_EVENTS) events.push(event);
        else overflowed = true;
      }
      // Named as the node half's own (`node:files`): root has steps of the same names (the
      // state directory), and a child's outcome must not pass for root's on the screen.
      emit({ ...event, step: `node:${event.step}` });
    },
  });
  node.spawned?.();
  const result = await running;
  ctx.signal?.throwIfAborted();
  if (overflowed)
    throw oacError('prepare_failed', { detail: `it printed more than ${MAX_KEPT_EVENTS} steps` });
  const refused = events.some((e) => e.type === 'step-plan' && e.action.kind === 'refuse');
  if (options.refusalsAnswer === true && refused) return events.map(withTrustedRefusals);
  if (refused)
    throw refusalError(
      events
        .map(withTrustedRefusals)
        .flatMap((e) => (e.type === 'step-plan' ? (e.action.refusals ?? []) : [])),
    );
  const failed = events.find((e) => e.type === 'step-failed');
  // OPS-02: the child's code and hint reach the screen and --json as root's own would.
  if (failed?.type === 'step-failed')
    throw new OacError(failed.code, failed.message, { hint: trustedHint(failed) });
  if (result.exitCode !== 0)
    throw oacError('prepare_failed', { detail: firstLines(result.stderr) });
  return events;
}

// The child runs as oac-node: what it prints is parsed with a schema before root passes it on
// (SEC-04), bounded in length; anything else is dropped.
const text = z.string().max(2000);
const step = z.string().regex(/^[a-z0-9:._/-]{1,64}$/);
const failureCode = z.string().regex(/^[a-z0-9_]{1,64}$/);
/** The refusals the node half's own drivers make (its directories, its provider file): any other
 *  code from the child is not taken as a refusal of root's plan. */
const NODE_REFUSALS = [
  'checkpoint_root_unwritable',
  'not_a_directory',
  'provider_file_changed',
] as const satisfies readonly MessageCode[];
/** The engine's event shapes (src/core/events.ts), bounded and narrowed to what the node half
 *  may say; a field this program does not know is dropped, not taken. */
const E = ENGINE_EVENTS;
const nodeRefusal = REFUSAL.extend({
  code: z.enum(NODE_REFUSALS),
  message: text,
  hint: text.optional(),
});
// Without `why`: what differs in the node half is said by root's own judge of its step.
const childAction = z
  .object(ACTION.shape)
  .omit({ why: true })
  .extend({
    detail: text,
    refusals: z.array(z.object(nodeRefusal.shape)).min(1).max(20).optional(),
  })
  // A refusal without its reasons (or reasons on another action) is no answer at all.
  .refine((a) => (a.kind === 'refuse') === (a.refusals !== undefined));
const childEvent = z.discriminatedUnion('type', [
  // The phase a node step shows under is root's to say (its node step's), not the child's.
  z.object(E['step-start'].shape).omit({ phase: true }).extend({ step, title: text }),
  z.object(E['step-plan'].shape).extend({ step, action: childAction }),
  z
    .object(E['step-done'].shape)
    .extend({ step, result: z.object(STEP_RESULT.shape).extend({ detail: text }) }),
  z
    .object(E['step-failed'].shape)
    .extend({ step, code: failureCode, message: text, hint: text.optional() }),
  z.object(E.progress.shape).extend({ step, file: text }),
  z.object(E.note.shape).extend({ step, message: text }),
]);

/** The hint of a known code is root's own (the child runs as oac-node, which on microsandbox
 *  is not root's equal: its words must not become root's advice), unless the hint names values
 *  only the child knows (placeholders); an unknown code gets none. */
function trustedHint(failed: { code: string; hint?: string }): string | undefined {
  if (!(failed.code in MESSAGES)) return undefined;
  const own = hint(failed.code as MessageCode);
  return own !== undefined && !own.includes('{') ? own : failed.hint;
}

/** The child's refusals with root's own hints, never the child's (they become root's words). */
function withTrustedRefusals(event: EngineEvent): EngineEvent {
  if (event.type !== 'step-plan' || event.action.refusals === undefined) return event;
  const refusals = event.action.refusals.map((r) => {
    const own = hint(r.code as MessageCode);
    const hintOf = own === undefined || own.includes('{') ? {} : { hint: own };
    return { code: r.code, message: r.message, ...hintOf };
  });
  return { ...event, action: { ...event.action, refusals } };
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

/** The node step as a kind (src/resources/kind.ts): the installation's own, registered beside
 *  the others in src/installation/kinds.ts; root runs the node half through it, unrecorded. */
export const nodeStepKind = defineKind({
  kind: 'node',
  desired: NODE_HALF_RESOURCE,
  recorded: false,
  driver: nodeHalfDriver,
  actual: NODE_HALF_ACTUAL,
  name: () => 'node half',
});
