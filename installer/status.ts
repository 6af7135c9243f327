// `oac-node status`: the recorded desired state diffed against the host, plus Core's view
// (DECL-01). Each resource the journal lists is probed and diffed by its own driver, the same
// code install uses; a resource whose diff is not empty is drift, named with what differs and
// what to do (DESIGN.md "Records": the host wins, the difference is reported). Read-only.
import { readJournal, type JournalResource } from '../records/journal.ts';
import type { DriverContext } from '../src/engine/driver.ts';
import { driverOf } from '../src/engine/drivers/index.ts';
import type { ServiceActual } from '../src/engine/drivers/service.ts';
import { readNodeIdentity } from '../src/engine/node-state.ts';
import { pinOrigin } from '../src/net/core-pin.ts';
import { recordedResources } from '../src/engine/recorded.ts';
import { nameOf, type Resource } from '../src/engine/resources.ts';
import { changes } from '../src/engine/step.ts';
import { Journal } from '../records/journal.ts';
import type { Host } from '../src/host/host.ts';
import { layout, type InstallationId, type Layout } from '../src/layout.ts';
import { isRegistered, type StoredIdentity } from '../src/agent/identity-store.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { CoreError } from '../src/net/core-errors.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import type { ProxyEnv } from '../src/net/proxy-env.ts';
import { proxyEnvForNode } from '../records/proxy-settings.ts';

export interface ResourceStatus {
  key: string;
  kind: Resource['kind'];
  name: string;
  ownership: JournalResource['ownership'];
  /** present: as the installer left it; missing: gone; drifted: there, but changed. */
  state: 'present' | 'missing' | 'drifted';
  /** For missing or drifted: what differs and what to do. */
  detail?: string;
}

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
  service: { unit: string; enabled: boolean; active: boolean };
  core: CoreStatus;
  /** One line per difference that needs the operator (empty: all is well). */
  problems: string[];
}

const RERUN = 'rerun the install command to restore it';

export async function nodeStatus(host: Host, id: InstallationId): Promise<NodeStatus | undefined> {
  const recorded = await readJournal(host, id);
  if (recorded === undefined) return undefined;
  const names = layout(id);
  const journal = Journal.of(host, id, recorded);
  const ctx: DriverContext = { host, layout: names, journal, emit: () => undefined };
  let service = { unit: names.unitName, enabled: false, active: false };
  // Read-only probes, so all at once, and Core asked meanwhile (issue #13: status waited for
  // each systemctl, Docker and Core answer in turn).
  const probeOne = async (r: Resource): Promise<ResourceStatus> => {
    const ownership = recorded.resources[r.key]?.ownership ?? 'owned';
    const driver = driverOf(r.kind);
    const actual = await driver.probe(r, ctx);
    if (r.kind === 'service') {
      const a = actual as ServiceActual;
      service = { unit: r.unit, enabled: a.enabled, active: a.active };
    }
    const found = await judge(r, ownership, () => driver.diff(r, actual, new Map()));
    return { key: r.key, kind: r.kind, name: nameOf(r), ownership, ...found };
  };
  const probed = recordedResources(names, recorded).filter((r) => r.kind !== 'node');
  const [resources, core] = await Promise.all([
    Promise.all(probed.map(probeOne)),
    coreStatusOf(host, names),
  ]);
  const problems = resources
    .filter((r) => r.state !== 'present')
    .map((r) => `${r.kind} ${r.name}: ${r.detail ?? r.state}`);
  if (core.state !== 'ready')
    problems.push(`Core: ${core.state}${core.detail ? ` (${core.detail})` : ''}`);
  return {
    installation_id: id,
    core_url: recorded.core_url,
    core_pin: core.core_pin ?? null,
    resources,
    service,
    core,
    problems,
  };
}

/** What Core says of the node, or why it cannot be asked (status lists problems; it does not
 *  stop at one: a damaged identity or an unusable proxy setting is named, not a crash). */
async function coreStatusOf(host: Host, names: Layout): Promise<CoreStatus> {
  let damaged: string | undefined;
  const identity = await readNodeIdentity(host, names).catch((error: unknown) => {
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

type Found = Pick<ResourceStatus, 'state' | 'detail'>;

async function judge(
  r: Resource,
  ownership: JournalResource['ownership'],
  diff: () => ReturnType<ReturnType<typeof driverOf>['diff']>,
): Promise<Found> {
  if (ownership === 'intended')
    return {
      state: 'drifted',
      detail: 'a run stopped before recording it; rerun the install command to finish',
    };
  let action;
  try {
    action = diff();
  } catch (error) {
    return {
      state: 'drifted',
      detail: `${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (!changes(action) && action.why === undefined) return { state: 'present' };
  const why = action.why ?? action.detail;
  if (r.kind === 'service' && action.kind === 'create')
    return { state: 'drifted', detail: `${why}: see sudo journalctl -u ${r.unit}, or ${RERUN}` };
  return { state: action.kind === 'create' ? 'missing' : 'drifted', detail: `${why}: ${RERUN}` };
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
