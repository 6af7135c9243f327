// What every install step shares: the Host, the options, the journal, and what earlier probes
// learned (Core's configuration, the manifest, the provider group). Paths are host paths; the
// Host maps them under --root.
import type { Journal } from '../records/journal.ts';
import type { Emit } from '../src/engine/events.ts';
import type { Host } from '../src/host/host.ts';
import type { NodeConfiguration } from '../src/net/core-schemas.ts';

export const NODE_USER = 'oac-node';
export const NODE_UID = 65532; // the UID of Core's service (HOST-01)
export const NODE_HOME = '/var/lib/oac-node';
export const NOLOGIN = '/usr/sbin/nologin';
export const DOCKER_SOCKET = '/var/run/docker.sock';
export const KVM_DEVICE = '/dev/kvm';
/** The node's directories under its home, parents first, by their journal keys. */
export const NODE_DIRS: ReadonlyArray<[key: string, path: string]> = [
  ['directory:.oac', `${NODE_HOME}/.oac`],
  ['directory:.oac/nodes', `${NODE_HOME}/.oac/nodes`],
];
/** microsandbox keeps images and sandboxes here (HOST-04). */
export const STORE_DIR = `${NODE_HOME}/.oac/m`;
/** microsandbox puts Unix sockets here: at most 48 bytes (the guide), so it sits in the store. */
export const RUNTIME_HOME = `${STORE_DIR}/run`;
/** What the glibc-linked microsandbox needs to start (PRE-05). */
export const GLIBC_LOADER = '/lib64/ld-linux-x86-64.so.2';

export function stateDir(installationId: string): string {
  return `${NODE_HOME}/.oac/nodes/${installationId}`;
}
export function unitName(installationId: string): string {
  return `oac-node-${installationId}.service`;
}
export function unitPath(installationId: string): string {
  return `/etc/systemd/system/${unitName(installationId)}`;
}
export function envFilePath(installationId: string): string {
  return `/etc/oac-node/${installationId}.env`;
}

export interface InstallOptions {
  coreUrl: string;
  installationId: string;
  name: string;
  dryRun: boolean;
  checkpointRoot?: string;
  /** The six proxy variables as the installer received them (DL-04, HOST-06). */
  proxyEnv: Record<string, string>;
}

export interface ProviderGroup {
  name: string;
  gid: number;
  /** The device or socket whose group it is. */
  path: string;
}

export interface InstallContext {
  host: Host;
  options: InstallOptions;
  journal: Journal;
  emit: Emit;
  token: string | undefined;
  configuration?: NodeConfiguration;
  providerGroup?: ProviderGroup;
  /** Bytes the node files need on disk (PRE-07), from the release manifest. */
  diskNeed?: number;
  /** Set when something the service reads changed: it must restart (HOST-06). */
  restartNeeded?: boolean;
  /** The node account's IDs, once the account step has run. */
  nodeIds?: { uid: number; gid: number };
}
