// The one place that names what an installation puts on a host (docs/design.md "Shape", SEC-10).
// The installation ID is parsed once, here, into a branded type; every path and resource name
// derives from that value, so no other module spells `/etc/oac-node`, `oac-node-<id>` or the
// node's directories. An ID such as `..` never reaches a path: `/usr/local/lib/oac-node/..`
// once passed as "this installation's program directory" and was removed recursively (#10).
import { join } from 'node:path';
import { UsageError } from './errors.ts';
import { message } from './messages.ts';

declare const installationIdBrand: unique symbol;
/** An installation ID that passed SEC-10's rule; only parseInstallationId makes one. */
export type InstallationId = string & { readonly [installationIdBrand]: true };

// SEC-10: a letter or digit first (so never `.`, `..`, `-x` or a hidden name), then at most 63
// of [A-Za-z0-9._-]: no `/`, no space, nothing systemd's `%` specifiers or a shell would read.
const INSTALLATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isInstallationId(value: unknown): value is InstallationId {
  return typeof value === 'string' && INSTALLATION_ID.test(value);
}

/** The ID from the command line: refused with one line (exit 64) before anything touches the host. */
export const INSTALLATION_ID_EMPTY =
  "--installation-id is empty: give the installation's ID, as the line from Web names it";

export function parseInstallationId(value: unknown): InstallationId {
  if (value === undefined) throw new UsageError('--installation-id is required');
  // Issue #39: given, but empty (`--installation-id=`, or a variable that was never set).
  if (value === '') throw new UsageError(INSTALLATION_ID_EMPTY);
  if (!isInstallationId(value)) throw new UsageError(message('installation_id_invalid'));
  return value;
}

/** The node account (HOST-01): Core's service UID, a home of its own, no login shell. */
export const NODE_USER = 'oac-node';
export const NODE_UID = 65532;
export const NODE_HOME = '/var/lib/oac-node';
export const NOLOGIN = '/usr/sbin/nologin';

/** The group the node joins for each provider (HOST-02): the one owning its endpoint. */
export const PROVIDER_GROUPS = { docker: 'docker', microsandbox: 'kvm' } as const;
/** Provider endpoints whose group the node joins (HOST-02). */
export const DOCKER_SOCKET = '/var/run/docker.sock';
export const KVM_DEVICE = '/dev/kvm';
/** What the glibc-linked microsandbox needs to start (PRE-05). */
export const GLIBC_LOADER = '/lib64/ld-linux-x86-64.so.2';

/** Records (HOST-05): root-only, one journal and one proxy env file per installation. */
export const JOURNAL_DIR = '/etc/oac-node';
/** Issue #39: the last run's events of each installation, root's alone (installer/last-run.ts). */
export const RUN_LOG_DIR = '/var/log/oac-node';
/** One installer or uninstaller at a time per host (SEC-05). */
// SEC-06: in a directory only root can write (never world-writable /run/lock, where any user
// could plant, age or block the lock), kept until reboot.
export const LOCK_DIR = '/run/oac-node';
export const INSTALLER_LOCK = `${LOCK_DIR}/installer.lock`;
/** Root-owned programs, one directory per installation (the node cannot replace its program). */
export const PROGRAM_ROOT = '/usr/local/lib/oac-node';
/** `oac-node` on PATH (issue #25 item 2): the command the hints and the guide name, shared by
 *  the host's installations (it runs the newest of their programs, src/resources/path-command.ts). */
export const PATH_COMMAND = '/usr/local/sbin/oac-node';
/** The target the unit is enabled for (its [Install] WantedBy=). */
export const WANTED_BY = 'multi-user.target';
/** microsandbox keeps images and sandboxes here (HOST-04), shared by the host's installations. */
export const STORE_DIR = `${NODE_HOME}/.oac/m`;

/** The sub-directories of the microsandbox store `store` (HOST-04): the imported images, the
 *  runtime home and the node-local checkpoints (HOST-11: unless the operator names a shared
 *  checkpoint store). `store` is STORE_DIR, or the path root's request maps it to (`--root`). */
export function storeDirs(store: string) {
  return {
    images: join(store, 'images'),
    runtimeHome: join(store, 'run'),
    checkpoints: join(store, 'checkpoints'),
  };
}
/** Where the Runtime image `imageId` (`sha256:<hex>`) is imported in the store `store`. */
export function importedImageDir(store: string, imageId: string): string {
  return join(storeDirs(store).images, imageId.replace(/^sha256:/, ''));
}
/** microsandbox puts Unix sockets here: at most 48 bytes (the guide), so it sits in the store. */
export const RUNTIME_HOME = storeDirs(STORE_DIR).runtimeHome;
/** The directories between the home and the node trees, parents first. */
export const NODE_DIRS = [`${NODE_HOME}/.oac`, `${NODE_HOME}/.oac/nodes`] as const;

/** The directory under $HOME that keeps the verified installers (BOOT-03): the pasted line makes
 *  it in the operator's home, and uninstall leaves it there. */
export const BOOTSTRAP_DIR = '.oac/node-bootstrap';

/** The label the node half puts on the network it creates: proof that it is this installation's. */
export const NETWORK_LABEL = 'oac-node.installation';

/** The files of a node's state directory, by name (the node program's --state-dir too). */
export const STATE_FILES = {
  identity: 'identity.json',
  provider: 'provider.json',
  serving: 'serving.json',
  /** A provider file staged for a switch of generation (src/node/serving.ts). */
  stagedProvider: 'provider.next.json',
  files: 'files',
  /** Provider files of earlier generations, kept until Core no longer needs them. */
  generations: 'generations',
  /** The node half's digest cache of its files (src/node/digest-file.ts, issue #13). */
  digests: 'digests.json',
  /** Manifests of releases staged from a bundle, by release (OFFLINE-01, src/node/staged.ts). */
  manifests: 'manifests',
} as const;

/** The file `name` of the node state directory `stateDir`. layout() places the installation's
 *  own; the node half and the node program find theirs under the directory they were given
 *  (root's request, `--state-dir`), which is a path of the host they run on: root mapped it
 *  already (`--root` included), so nothing of theirs is derived from this host's `/` (#23).
 *  Joined as `path.join` does, as the node half's callers did before they used it. */
export function stateFile(stateDir: string, name: keyof typeof STATE_FILES): string {
  return join(stateDir, STATE_FILES[name]);
}

export interface Layout {
  id: InstallationId;
  unitName: string;
  unitPath: string;
  /** The link `systemctl enable` makes for the unit. */
  enableLink: string;
  /** Where `systemctl mask --runtime` masks the unit (a link to /dev/null), until the next boot. */
  runtimeUnitPath: string;
  envFile: string;
  journal: string;
  /** The last install run's --json events, kept for status and a ticket (installer/last-run.ts). */
  lastRunLog: string;
  programDir: string;
  program: string;
  /** UPG-02: the program an upgrade replaced, kept (a hard link) until the new one is ready. */
  previousProgram: string;
  stateDir: string;
  identityFile: string;
  providerFile: string;
  servingFile: string;
  network: string;
  store: string;
}

/** Every name of one installation. */
export function layout(id: InstallationId): Layout {
  const stateDir = `${NODE_HOME}/.oac/nodes/${id}`;
  const unitName = `oac-node-${id}.service`;
  return {
    id,
    unitName,
    unitPath: `/etc/systemd/system/${unitName}`,
    enableLink: `/etc/systemd/system/${WANTED_BY}.wants/${unitName}`,
    runtimeUnitPath: `/run/systemd/system/${unitName}`,
    envFile: `${JOURNAL_DIR}/${id}.env`,
    journal: `${JOURNAL_DIR}/${id}.json`,
    lastRunLog: `${RUN_LOG_DIR}/${id}.last-run.jsonl`,
    programDir: `${PROGRAM_ROOT}/${id}`,
    program: `${PROGRAM_ROOT}/${id}/oac-node`,
    previousProgram: `${PROGRAM_ROOT}/${id}/oac-node.previous`,
    stateDir,
    identityFile: stateFile(stateDir, 'identity'),
    providerFile: stateFile(stateDir, 'provider'),
    servingFile: stateFile(stateDir, 'serving'),
    network: `oac-node-${id}`,
    store: STORE_DIR,
  };
}

/** The installation IDs recorded in the journal directory (file names `<id>.json`): names that
 *  are no valid ID are not ours and are ignored. */
export function journalIds(names: readonly string[]): InstallationId[] {
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -'.json'.length))
    .filter(isInstallationId);
}
