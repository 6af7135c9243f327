// `oac-node status` (issue #5 item 3): the record (journal) against the host against Core. Each
// recorded resource is probed again; where the host differs from what the installer made, that
// is drift, named with what to do (DESIGN.md "Records": the host wins, the difference is
// reported). Read-only: nothing here changes the host or Core.
import { readJournal, type JournalData, type JournalResource } from '../records/journal.ts';
import { readGroups, readPasswd } from '../src/host/accounts.ts';
import type { Host } from '../src/host/host.ts';
import { sha256FileIfExists } from '../src/host/files.ts';
import { isActive, isEnabled } from '../src/host/systemd.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { CoreError } from '../src/net/core-errors.ts';
import { DockerApi } from '../src/net/docker-api.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import { isRegistered, type StoredIdentity } from '../src/agent/identity-store.ts';
import { DOCKER_SOCKET, NODE_HOME, NODE_UID, NODE_USER, unitName, unitPath } from './context.ts';
import { renderUnit } from './unit-file.ts';
import { readNodeIdentity } from './wait-ready.ts';

export interface ResourceStatus {
  key: string;
  kind: JournalResource['kind'];
  name: string;
  ownership: JournalResource['ownership'];
  /** present: as the installer left it; missing: gone; drifted: there, but changed. */
  state: 'present' | 'missing' | 'drifted';
  /** For missing or drifted: what differs and what to do. */
  detail?: string;
}

export interface CoreStatus {
  state: 'ready' | 'not ready' | 'disconnected' | 'removed' | 'unreachable' | 'not registered';
  node_id?: string;
  detail?: string;
}

export interface NodeStatus {
  installation_id: string;
  core_url: string;
  resources: ResourceStatus[];
  service: { unit: string; enabled: boolean; active: boolean };
  core: CoreStatus;
  /** One line per difference that needs the operator (empty: all is well). */
  problems: string[];
}

const RERUN = 'rerun the install command to restore it';

export async function nodeStatus(
  host: Host,
  installationId: string,
): Promise<NodeStatus | undefined> {
  const journal = await readJournal(host, installationId);
  if (journal === undefined) return undefined;
  const identity = await readNodeIdentity(host, installationId).catch(() => undefined);
  const resources: ResourceStatus[] = [];
  for (const [key, resource] of Object.entries(journal.resources)) {
    const { kind, name, ownership } = resource;
    const found = await probe(host, journal, key, resource, identity);
    resources.push({ key, kind, name, ownership, ...found });
  }
  const unit = unitName(installationId);
  const service = {
    unit,
    enabled: await isEnabled(host, unit).catch(() => false),
    active: await isActive(host, unit).catch(() => false),
  };
  const core = await askCore(identity);
  const problems = resources
    .filter((r) => r.state !== 'present')
    .map((r) => `${r.kind} ${r.name}: ${r.detail ?? r.state}`);
  if (resources.some((r) => r.key === 'unit' && r.state !== 'missing')) {
    if (!service.enabled) problems.push(`${unit} is not enabled: ${RERUN}`);
    if (!service.active) problems.push(`${unit} is not running: see sudo journalctl -u ${unit}`);
  }
  if (core.state !== 'ready')
    problems.push(`Core: ${core.state}${core.detail ? ` (${core.detail})` : ''}`);
  return {
    installation_id: installationId,
    core_url: journal.core_url,
    resources,
    service,
    core,
    problems,
  };
}

type Probe = Pick<ResourceStatus, 'state' | 'detail'>;
const present: Probe = { state: 'present' };
const missing = (detail: string): Probe => ({ state: 'missing', detail });
const drifted = (detail: string): Probe => ({ state: 'drifted', detail });

async function probe(
  host: Host,
  journal: JournalData,
  key: string,
  resource: JournalResource,
  identity: StoredIdentity | undefined,
): Promise<Probe> {
  if (resource.ownership === 'intended')
    return drifted('a run stopped before recording it; rerun the install command to finish');
  switch (resource.kind) {
    case 'account':
      return probeAccount(host);
    case 'group-membership':
      return probeMembership(host, resource.name);
    case 'unit':
      return probeUnit(host, journal, identity);
    case 'docker-network':
      return probeNetwork(host, resource.name);
    case 'file':
      return key === 'program' ? probeProgram(host, resource) : probeFile(host, resource.name);
    default:
      return (await host.lstat(resource.name)) === undefined ? missing(`gone: ${RERUN}`) : present;
  }
}

async function probeAccount(host: Host): Promise<Probe> {
  const user = (await readPasswd(host)).find((u) => u.name === NODE_USER);
  if (user === undefined) return missing(`the account is gone: ${RERUN}`);
  if (user.uid !== NODE_UID || user.home !== NODE_HOME)
    return drifted(`UID ${user.uid}, home ${user.home}: not the node's account`);
  return present;
}

async function probeMembership(host: Host, group: string): Promise<Probe> {
  const entry = (await readGroups(host)).find((g) => g.name === group);
  if (entry === undefined) return missing(`the group ${group} is gone`);
  return entry.members.includes(NODE_USER)
    ? present
    : missing(`${NODE_USER} is no longer in ${group}: ${RERUN}`);
}

async function probeUnit(
  host: Host,
  journal: JournalData,
  identity: StoredIdentity | undefined,
): Promise<Probe> {
  const current = (await host.readFile(unitPath(journal.installation_id)))?.toString('utf8');
  if (current === undefined) return missing(`the unit file is gone: ${RERUN}`);
  const wanted = renderUnit({
    installationId: journal.installation_id,
    coreUrl: journal.core_url,
    provider: identity?.provider ?? 'docker',
    checkpointRoot: journal.resources['checkpoint-root']?.name,
  });
  return current === wanted
    ? present
    : drifted(`edited by hand (put overrides in a drop-in, systemctl edit); ${RERUN}`);
}

async function probeNetwork(host: Host, name: string): Promise<Probe> {
  const docker = new DockerApi(`unix://${host.path(DOCKER_SOCKET)}`);
  try {
    return (await docker.networkExists(name)) ? present : missing(`the network is gone: ${RERUN}`);
  } catch {
    return drifted('Docker does not answer, so the network cannot be checked');
  } finally {
    await docker.close();
  }
}

async function probeProgram(host: Host, resource: JournalResource): Promise<Probe> {
  const sha256 = await sha256FileIfExists(host.path(resource.name));
  if (sha256 === undefined) return missing(`the node program is gone: ${RERUN}`);
  const recorded = resource.detail.sha256;
  return recorded === undefined || recorded === sha256
    ? present
    : drifted(`its SHA-256 is ${sha256}, not the installed ${String(recorded)}: ${RERUN}`);
}

async function probeFile(host: Host, path: string): Promise<Probe> {
  const found = await host.lstat(path);
  if (found === undefined) return missing(`gone: ${RERUN}`);
  return found.uid === 0 && (found.mode & 0o077) === 0
    ? present
    : drifted(`owner or mode changed (root, 0600 expected): ${RERUN}`);
}

async function askCore(identity: StoredIdentity | undefined): Promise<CoreStatus> {
  if (identity === undefined || !isRegistered(identity)) return { state: 'not registered' };
  const client = new CoreClient({
    coreUrl: identity.core_url,
    dispatcher: sharedDispatcher(),
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
