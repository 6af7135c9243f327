// `oac-node status`: the plan of what the journal records with nothing applied (DECL-01,
// Terraform's refresh-only: src/core/plan.ts), the node half's own plan, and Core's view. Each
// resource is probed and diffed by its own driver, the same plan install makes; a step that is
// not empty is drift, named with what differs and what to do (docs/design.md "Records": the host
// wins, the difference is reported). Read-only.
import { readJournal, type LastRun } from '../records/journal.ts';
import { setTimeout as delay } from 'node:timers/promises';
import type {
  InstallContext,
  NodeHalfInputs,
  RootContext,
} from '../src/installation/root-context.ts';
import { planFor } from '../src/installation/plan-for.ts';
import type { ServiceActual } from '../src/resources/drivers/service.ts';
import { readNodeIdentityFor } from '../src/installation/node-state.ts';
import { pinOrigin } from '../src/net/core-pin.ts';
import { recordedResources } from '../src/installation/recorded.ts';
import { kindOf, nameOf } from '../src/installation/kinds.ts';
import { KEYS } from '../src/resources/keys.ts';
import { Journal } from '../records/journal.ts';
import type { Host } from '../src/host/host.ts';
import { layout, type InstallationId, type Layout } from '../src/layout.ts';
import { isRegistered, type StoredIdentity } from '../src/node/identity-store.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { CoreError } from '../src/net/core-errors.ts';
import { EXIT } from '../src/errors.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import type { ProxyEnv } from '../src/net/proxy-env.ts';
import { proxyEnvForNode, savedProxyEnv } from '../records/proxy-settings.ts';
import { nextSteps } from './status-next.ts';
import {
  nodeHalfOf,
  unknownNodeHalf,
  type NodeHalfStatus,
  type ResourceStatus,
} from './status-node-half.ts';
import { installedNodeInputs } from '../src/installation/installed-node.ts';
import { nodeStep } from '../src/installation/desired.ts';
import type { Plan } from '../src/installation/root-plan.ts';
import type { RootResource } from '../src/installation/root-context.ts';
import { judgeStep } from './status-judge.ts';
import { hostIdOn, onAnotherHost } from '../src/node/host-id.ts';
import { message } from '../src/messages.ts';

export type { ResourceStatus } from './status-node-half.ts';

export interface CoreStatus {
  state:
    | 'ready'
    | 'not ready'
    | 'disconnected'
    | 'removed'
    | 'unreachable'
    | 'not registered'
    | 'unknown';
  node_id?: string;
  detail?: string;
  /** The node's recorded pin (TRUST-01), when its identity could be read. */
  core_pin?: string | null;
}

export interface NodeStatus {
  installation_id: string;
  core_url: string;
  /** TRUST-01: the pin of Core's key the node trusts; null: the host's trust store. */
  core_pin: string | null;
  resources: ResourceStatus[];
  /** Whether the node half's plan was made (its resources are then among `resources`). */
  node_half: { state: NodeHalfStatus['state']; detail?: string };
  service: { unit: string; enabled: boolean; active: boolean };
  core: CoreStatus;
  /** One line per difference that needs the operator (empty: all is well). */
  problems: string[];
  /** What to do about them, each with its exact command (installer/status-next.ts). */
  next: string[];
  /** Issue #39: the installed program's version (as its record says), the generation and
   *  release the node serves (when Core could be asked), the last run that changed the host,
   *  and where that run's events are kept. */
  program: { version: string | null };
  serving: { generation: number; release: string | null } | null;
  last_run: LastRun | null;
  last_run_log: string | null;
  /** Issue #40: the node was registered on another host (src/node/host-id.ts). */
  other_host: boolean;
}

/** `status`'s exit statuses (issue #25; docs/automation.md), so a script tells apart what it
 *  must do: nothing (0), rerun the install (2, as `--dry-run`'s "something would change"),
 *  install at all (4), look at the network or Docker (5), or look at Core's side (6). 1 stays
 *  "status itself failed" (a damaged record). */
export const STATUS_EXIT = {
  converged: EXIT.ok,
  drift: EXIT.changesPending,
  notInstalled: EXIT.nothingInstalled,
  notChecked: EXIT.notChecked,
  notReady: EXIT.notReady,
  otherHost: EXIT.otherHost,
} as const;

/** The first that holds: the node belongs to another host (this one is a copy: nothing else
 *  matters until that is settled); Core removed the node (its service then stops with 78, which is no
 *  drift a rerun repairs: uninstall, or add the host anew); drift on the host (a rerun repairs
 *  it); what could not be checked (Core unreachable, the node half's plan not made); Core's
 *  view of the node. */
export function statusExit(
  s: Pick<NodeStatus, 'resources' | 'core' | 'node_half' | 'other_host'>,
): number {
  if (s.other_host) return STATUS_EXIT.otherHost;
  if (s.core.state === 'removed') return STATUS_EXIT.notReady;
  if (s.resources.some((r) => r.state !== 'present')) return STATUS_EXIT.drift;
  const unchecked = s.core.state === 'unreachable' || s.core.state === 'unknown';
  if (unchecked || s.node_half.state === 'unknown') return STATUS_EXIT.notChecked;
  if (s.core.state !== 'ready') return STATUS_EXIT.notReady;
  return STATUS_EXIT.converged;
}

export async function nodeStatus(host: Host, id: InstallationId): Promise<NodeStatus | undefined> {
  const recorded = await readJournal(host, id);
  if (recorded === undefined) return undefined;
  const names = layout(id);
  const journal = Journal.of(host, id, recorded);
  const ctx: RootContext = { host, layout: names, journal, emit: () => undefined };
  // A copy of the node's host asks Core nothing with the node's credential (issue #40).
  const copied = await copiedNode(host, names, recorded.core_url);
  // The plan with nothing applied (refresh-only: probed all at once, each resource diffed on its
  // own), and Core asked meanwhile (issue #13: status waited for each answer in turn).
  // The node half's plan is a step of it (issue #38), planned as install plans it, with the
  // installed node's inputs.
  const [{ planned, nodeHalf, serving }, core] = await Promise.all([
    refreshPlan(ctx, recordedResources(names, recorded), copied),
    copied ?? coreStatusOf(host, names, recorded.core_url),
  ]);
  let service = { unit: names.unitName, enabled: false, active: false };
  const rootSteps = planned.steps.filter((s) => s.resource.key !== KEYS.node);
  const rootResources = rootSteps.map(({ resource: r, action, actual }): ResourceStatus => {
    const ownership = recorded.resources[r.key]?.ownership ?? 'owned';
    if (r.key === KEYS.service) {
      const a = actual as ServiceActual;
      service = { unit: names.unitName, enabled: a.enabled, active: a.active };
    }
    return {
      key: r.key,
      kind: r.kind,
      name: nameOf(r),
      ownership,
      ...judgeStep(action, { ownership, advice: kindOf(r).missingAdvice(r) }),
    };
  });
  const resources = merged(rootResources, nodeHalf.resources);
  const problems = resources
    .filter((r) => r.state !== 'present')
    .map((r) => `${r.kind} ${r.name}: ${r.detail ?? r.state}`);
  if (copied !== undefined) problems.unshift(message('host_copied', { node_id: copied.node_id }));
  if (core.state !== 'ready')
    problems.push(`Core: ${core.state}${core.detail ? ` (${core.detail})` : ''}`);
  // Core answers, yet the node half's plan could not be made (Docker down, the release not
  // readable): that is a problem of its own, not "no drift".
  else if (nodeHalf.state === 'unknown')
    problems.push(`Node half: not checked (${nodeHalf.detail ?? 'no reason given'})`);
  const judged = {
    other_host: copied !== undefined,
    resources,
    node_half: { state: nodeHalf.state, ...(nodeHalf.detail ? { detail: nodeHalf.detail } : {}) },
    service,
    core,
  };
  const proxyNames = Object.keys(await savedProxyEnv(host, names).catch(() => ({})));
  const version = recorded.resources[KEYS.program]?.props.version;
  const log = await host.lstat(names.lastRunLog);
  return {
    installation_id: id,
    core_url: recorded.core_url,
    core_pin: core.core_pin ?? null,
    ...judged,
    problems,
    next: nextSteps(judged, { recorded, proxyNames }),
    program: { version: typeof version === 'string' ? version : null },
    serving,
    last_run: recorded.last_run ?? null,
    last_run_log: log?.isFile() === true ? names.lastRunLog : null,
  };
}

/** One row per resource of the installation's one value (DECL-01): a resource root records and
 *  the node half also planned (its directories, network, store) is one row, in the worse of
 *  the two states (root's probe, the node account's view). */
function merged(root: ResourceStatus[], node: ResourceStatus[]): ResourceStatus[] {
  const rows = [...root];
  const rank = { present: 0, drifted: 1, missing: 2 } as const;
  for (const row of node) {
    const at = rows.findIndex((r) => `node:${r.key}` === row.key);
    const there = rows[at];
    if (there === undefined) rows.push(row);
    else if (rank[row.state] > rank[there.state])
      rows[at] = { ...there, state: row.state, ...(row.detail ? { detail: row.detail } : {}) };
  }
  return rows;
}

/** The refresh-only plan of what the journal records and of the node step: each resource
 *  probed once, the node step's (the node half's dry run, after Core's configuration is read)
 *  beside the others'. When the node half's plan cannot be made (the node not registered, Core
 *  unreachable, Docker down) its step is left out and status says why; the rest is judged. */
async function refreshPlan(
  ctx: RootContext,
  recorded: RootResource[],
  copied: CoreStatus | undefined,
): Promise<{ planned: Plan; nodeHalf: NodeHalfStatus; serving: NodeStatus['serving'] }> {
  // Issue #41: the node half's dry run is the longest probe. Its inputs (Core's configuration)
  // are read, and the child started, before root's probes start their systemctl processes,
  // which delayed both by about 50 ms; at most ROOT_PROBES_WAIT_MS, though, when Core is slow.
  let spawned = () => undefined as void;
  const started = new Promise<void>((resolve) => (spawned = resolve));
  const nodePlan =
    copied === undefined
      ? installedNodeInputs(ctx.host, ctx.layout, ctx.journal).then((inputs) =>
          nodeStepPlan(ctx, typeof inputs === 'string' ? inputs : { ...inputs, spawned }),
        )
      : nodeStepPlan(ctx, NOT_ASKED);
  await Promise.race([started, nodePlan, delay(ROOT_PROBES_WAIT_MS, undefined, { ref: false })]);
  const [node, root] = await Promise.all([nodePlan, planFor('status', { wanted: recorded }, ctx)]);
  const step = node.planned?.steps[0];
  const wanted = root.wanted;
  const planned = step === undefined ? wanted : { ...wanted, steps: [...wanted.steps, step] };
  return { planned, nodeHalf: node.nodeHalf, serving: node.serving ?? null };
}

async function nodeStepPlan(
  ctx: RootContext,
  node: NodeHalfInputs | string,
): Promise<NodeStepPlan> {
  if (typeof node === 'string') return { nodeHalf: unknownNodeHalf(node) };
  const withNode: InstallContext = { ...ctx, node };
  const release = node.configuration.specification.release;
  const serving = {
    generation: node.configuration.generation,
    release: typeof release === 'string' ? release : null,
  };
  try {
    const { wanted } = await planFor('status', { wanted: [nodeStep()] }, withNode);
    return { planned: wanted, nodeHalf: nodeHalfOf(wanted), serving };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { nodeHalf: unknownNodeHalf(why), serving };
  }
}

const NOT_ASKED = 'not asked: the node belongs to another host';
const ROOT_PROBES_WAIT_MS = 150;

type NodeStepPlan = { planned?: Plan; nodeHalf: NodeHalfStatus; serving?: NodeStatus['serving'] };

/** Core's status on a copy of the node's host (src/node/host-id.ts), or undefined on its own
 *  host: what the identity records against this host's ID. An identity that cannot be read is
 *  coreStatusOf's to report. */
async function copiedNode(
  host: Host,
  names: Layout,
  coreUrl: string,
): Promise<(CoreStatus & { node_id: string }) | undefined> {
  const identity = await readNodeIdentityFor(host, names, coreUrl).catch(() => undefined);
  if (identity === undefined) return undefined;
  const current = await hostIdOn(host);
  if (!onAnotherHost(identity.host_id, current)) return undefined;
  const core_pin = identity.core_pin ?? null;
  return { state: 'unknown', node_id: identity.node_id, detail: NOT_ASKED, core_pin };
}

/** What Core says of the node, or why it cannot be asked (status lists problems; it does not
 *  stop at one: a damaged identity or an unusable proxy setting is named, not a crash). */
async function coreStatusOf(host: Host, names: Layout, coreUrl: string): Promise<CoreStatus> {
  let damaged: string | undefined;
  // The identity is the node account's file: it must name the Core root recorded.
  const identity = await readNodeIdentityFor(host, names, coreUrl).catch((error: unknown) => {
    damaged = error instanceof Error ? error.message : String(error);
    return undefined;
  });
  if (damaged !== undefined) return { state: 'unknown', detail: damaged };
  const core_pin = identity?.core_pin ?? null;
  // TRUST-01: Core is asked as the node asks it, trusting its recorded pin alone.
  if (identity !== undefined) pinOrigin(identity.core_url, core_pin);
  const status: CoreStatus = await proxyEnvForNode(host, names)
    .then((proxyEnv) => askCore(identity, proxyEnv))
    .catch((error: unknown) => ({
      state: 'unknown' as const,
      detail: error instanceof Error ? error.message : String(error),
    }));
  return { ...status, core_pin };
}

async function askCore(
  identity: StoredIdentity | undefined,
  proxyEnv: ProxyEnv,
): Promise<CoreStatus> {
  if (identity === undefined || !isRegistered(identity)) return { state: 'not registered' };
  const client = new CoreClient({
    coreUrl: identity.core_url,
    // Through the node's saved proxy settings, unless the caller gives its own (HOST-06).
    dispatcher: sharedDispatcher(proxyEnv),
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  const node_id = identity.node_id;
  try {
    const view = await client.identity(node_id, identity.credential);
    if (!view.connected) return { state: 'disconnected', node_id };
    return { state: view.provider_ready ? 'ready' : 'not ready', node_id };
  } catch (error) {
    if (error instanceof CoreError && error.code === 'node_credential_refused')
      return {
        state: 'removed',
        node_id,
        detail: 'Core no longer accepts this node: uninstall it',
      };
    return {
      state: 'unreachable',
      node_id,
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}
