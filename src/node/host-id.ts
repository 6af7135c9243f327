// Which host a node belongs to (issue #40; docs/troubleshooting.md "This host is a copy"). At
// registration the node records its host's ID; a copy of the disk or of a VM image booted as
// another machine carries the node's identity but not the ID, and the node then refuses to run
// there. The ID is systemd's application-specific ID of /etc/machine-id for oac-node
// (sd_id128_get_machine_app_specific: HMAC-SHA256 keyed with the machine ID): the same on every
// boot and upgrade, new on every machine made from an image, readable by the node's own account,
// and no use to anyone who reads the identity file (the machine ID itself is meant to stay
// private). An operator computes it with `systemd-id128 machine-id --app-specific=<HOST_ID_APP>`.
import { createHmac } from 'node:crypto';
import { readIfExists } from '../host/files.ts';
import { EXIT } from '../errors.ts';
import { oacError } from '../messages.ts';

/** oac-node's application ID for the machine ID (a random UUID, fixed for good). */
export const HOST_ID_APP = '1fe9e88f0a7c4f1b8887177e8cfc9631';

/** The host ID's form in the identity file: 32 lower-case hex digits. */
export const HOST_ID_PATTERN = /^[0-9a-f]{32}$/;

/** The machine ID file, where systemd keeps it. */
export const MACHINE_ID_FILE = '/etc/machine-id';

/** The host ID of a machine-id file's text; undefined when it holds no machine ID (empty, or
 *  systemd's "uninitialized" before the first boot committed one). */
export function hostIdOf(machineIdText: string): string | undefined {
  const machineId = machineIdText.trim();
  if (!HOST_ID_PATTERN.test(machineId) || /^0+$/.test(machineId)) return undefined;
  const id = createHmac('sha256', Buffer.from(machineId, 'hex'))
    .update(Buffer.from(HOST_ID_APP, 'hex'))
    .digest()
    .subarray(0, 16);
  // As systemd: a version-4 UUID's version and variant bits.
  id[6] = ((id[6] ?? 0) & 0x0f) | 0x40;
  id[8] = ((id[8] ?? 0) & 0x3f) | 0x80;
  return id.toString('hex');
}

/** The host ID of the machine-id file at `path` (a host's, `--root` mapped); null when the file
 *  is missing or holds none, or when this host's is a new one at every boot (below): then
 *  nothing is recorded, and nothing can be compared. */
export async function readHostId(path: string): Promise<string | null> {
  if (path === MACHINE_ID_FILE && (await transientMachineId())) return null;
  const text = await readIfExists(path).catch(() => undefined);
  return text === undefined ? null : (hostIdOf(text.toString('utf8')) ?? null);
}

/** systemd mounts a machine ID made at boot over /etc/machine-id when it cannot write one (a
 *  read-only /etc, a stateless or network-booted host): a new one at every boot, which would
 *  stop a node that never moved. Such a host is not judged (docs/operator-guide.md). */
async function transientMachineId(): Promise<boolean> {
  const mounts = await readIfExists('/proc/self/mountinfo').catch(() => undefined);
  // mountinfo's fifth field is the mount point.
  return (mounts?.toString('utf8') ?? '')
    .split('\n')
    .some((line) => line.split(' ')[4] === MACHINE_ID_FILE);
}

/** Whether a node recorded on one host now runs on another: only when both IDs are known (a
 *  node registered before the ID was recorded, or a host without one, is not judged). */
export function onAnotherHost(
  recorded: string | null | undefined,
  current: string | null,
): boolean {
  return typeof recorded === 'string' && current !== null && recorded !== current;
}

/** A node recorded on another host stops here, in one line naming the fix (exit 78: the service
 *  is not restarted, and nothing is changed or asked of Core). */
export function refuseAnotherHost(
  identity: { node_id: string; installation_id: string; host_id?: string | null },
  current: string | null,
): void {
  if (!onAnotherHost(identity.host_id, current)) return;
  const values = { node_id: identity.node_id, id: identity.installation_id };
  throw oacError('host_copied', values, { exitCode: EXIT.otherHost });
}

/** This host's ID, as a Host door maps its machine-id file (`--root` included). */
export function hostIdOn(host: { path(hostPath: string): string }): Promise<string | null> {
  return readHostId(host.path(MACHINE_ID_FILE));
}
