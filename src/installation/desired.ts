// The desired state of one installation (DECL-01): a pure function from the inputs (Core's
// configuration: the provider; the options: Core's address, proxy settings, checkpoint store;
// the executable being installed) to the ordered list of resources. `resourceShape` is the same
// list without the properties only an install knows (content and digests): status and uninstall
// start from it and fill in what the journal recorded, so no command re-derives intent.
import {
  DOCKER_SOCKET,
  NODE_DIRS,
  NODE_HOME,
  NODE_UID,
  NODE_USER,
  NETWORK_LABEL,
  NOLOGIN,
  PATH_COMMAND,
  PROGRAM_ROOT,
  PROVIDER_GROUPS,
  type Layout,
} from '../layout.ts';
import { envFileDigest, renderEnvFile } from '../../records/env-file.ts';
import type { DirectoryResource, ServiceResource } from '../resources/resources.ts';
import type { RootResource } from './context.ts';
import { renderUnit } from '../resources/unit-file.ts';
import { PATH_COMMAND_MARK, renderPathCommand } from '../resources/path-command.ts';
import { sha256 } from '../resources/sha256.ts';

export type Provider = 'docker' | 'microsandbox';

export interface Shape {
  /** Undefined when not known (uninstall without a record): both providers' resources. */
  provider: Provider | undefined;
  /** The provider groups the node joined; undefined: not known (every provider's). */
  groups: string[] | undefined;
}

export interface DesiredInputs {
  layout: Layout;
  provider: Provider;
  group: string;
  /** Core's origin, as the node enrolls with it. */
  coreUrl: string;
  /** TRUST-01: the pin of Core's key the service reads at start (null: the host's store). */
  corePin: string | null;
  checkpointRoot?: string;
  /** The six proxy variables of this run (HOST-06). */
  proxyEnv: Record<string, string>;
  /** The env file's digest key: the one of the file there, or a new one (records/env-file.ts). */
  envKey: string;
  /** The executable to install as the node program, and its SHA-256. */
  program: { source: string; sha256: string };
}

export const KEYS = {
  account: `account:${NODE_USER}`,
  membership: (group: string) => `group-membership:${group}`,
  home: 'directory:home',
  programRoot: 'directory:program-root',
  programDir: 'directory:program',
  program: 'program',
  pathCommand: 'path-command',
  nodeDirs: ['directory:.oac', 'directory:.oac/nodes'] as const,
  state: 'state',
  network: 'network',
  store: 'store',
  node: 'node',
  envFile: 'proxy-settings',
  unit: 'unit',
  service: 'service',
} as const;

/** Every resource of an installation, in the order install applies them (uninstall reverses
 *  it), with identities and no content. */
export function resourceShape(layout: Layout, shape: Shape): RootResource[] {
  const groups = shape.groups ?? Object.values(PROVIDER_GROUPS);
  const docker = shape.provider !== 'microsandbox';
  const microsandbox = shape.provider !== 'docker';
  const list: RootResource[] = [
    {
      kind: 'account',
      key: KEYS.account,
      phase: 'account',
      title: `Service account ${NODE_USER}`,
      name: NODE_USER,
      uid: NODE_UID,
      home: NODE_HOME,
      shell: NOLOGIN,
    },
    ...groups.map((group): RootResource => ({
      kind: 'membership',
      key: KEYS.membership(group),
      phase: 'group',
      title: 'Provider group',
      user: NODE_USER,
      group,
    })),
    rootDir(KEYS.home, 'home', `Home ${NODE_HOME}`, NODE_HOME, 0o750, true, 'tree'),
    rootDir(KEYS.programRoot, 'program', 'Program directory', PROGRAM_ROOT, 0o755, false, 'empty'),
    rootDir(
      KEYS.programDir,
      'program',
      'Program directory',
      layout.programDir,
      0o755,
      false,
      'empty',
    ),
    {
      kind: 'file',
      key: KEYS.program,
      phase: 'program',
      title: 'Node program',
      path: layout.program,
      mode: 0o755,
    },
    {
      kind: 'file',
      key: KEYS.pathCommand,
      phase: 'program',
      title: 'oac-node on PATH',
      path: PATH_COMMAND,
      mode: 0o755,
      mark: PATH_COMMAND_MARK,
    },
    nodeDir(KEYS.nodeDirs[0], 'Node directories', NODE_DIRS[0], 'empty'),
    nodeDir(KEYS.nodeDirs[1], 'Node directories', NODE_DIRS[1], 'empty'),
    nodeDir(KEYS.state, 'Node state directory', layout.stateDir, 'tree'),
  ];
  if (docker)
    list.push({
      kind: 'network',
      key: KEYS.network,
      phase: 'prepare',
      title: 'Docker network',
      name: layout.network,
      socket: DOCKER_SOCKET,
      label: { key: NETWORK_LABEL, value: layout.id },
    });
  if (microsandbox)
    list.push({
      ...nodeDir(KEYS.store, 'microsandbox store', layout.store, 'tree'),
      // UNI-05: a store kept (Core has not confirmed the node's removal) keeps its owner and
      // the directories it lies in (home/.oac/m: not .oac/nodes).
      needs: [KEYS.account, KEYS.home, KEYS.nodeDirs[0]],
    });
  list.push(
    {
      kind: 'node',
      key: KEYS.node,
      phase: 'prepare',
      title: 'Node files, Runtime image, network and registration (as oac-node)',
    },
    {
      kind: 'file',
      key: KEYS.envFile,
      phase: 'proxy-settings',
      title: 'Proxy settings',
      path: layout.envFile,
      mode: 0o600,
      secret: true,
    },
    {
      kind: 'unit',
      key: KEYS.unit,
      phase: 'unit',
      title: 'Service unit',
      unit: layout.unitName,
      path: layout.unitPath,
    },
    {
      kind: 'service',
      key: KEYS.service,
      phase: 'service',
      title: 'Start the node service',
      unit: layout.unitName,
      reads: [...groups.map(KEYS.membership), KEYS.program, KEYS.envFile, KEYS.unit],
    },
  );
  return list;
}

/** What an install wants: the shape with every property filled in. */
export function desired(inputs: DesiredInputs): RootResource[] {
  const { layout } = inputs;
  const unit = renderUnit({
    layout,
    coreUrl: inputs.coreUrl,
    provider: inputs.provider,
    checkpointRoot: inputs.checkpointRoot,
  });
  const env = renderEnvFile(inputs.proxyEnv, inputs.envKey);
  const pathCommand = renderPathCommand();
  const digests = {
    unit: sha256(unit),
    // Keyed: the file holds proxy credentials (issue #27 finding 5).
    env: env === undefined ? null : (envFileDigest(env) ?? null),
    program: inputs.program.sha256,
  };
  return resourceShape(layout, { provider: inputs.provider, groups: [inputs.group] }).map((r) => {
    if (r.key === KEYS.program && r.kind === 'file')
      return { ...r, sha256: digests.program, copyFrom: inputs.program.source };
    if (r.key === KEYS.pathCommand && r.kind === 'file')
      return { ...r, sha256: sha256(pathCommand), content: pathCommand };
    if (r.key === KEYS.envFile && r.kind === 'file')
      return { ...r, sha256: digests.env, ...(env === undefined ? {} : { content: env }) };
    if (r.kind === 'unit') return { ...r, sha256: digests.unit, content: unit };
    if (r.kind === 'service')
      return { ...r, inputs: serviceInputs(r, digests, inputs.group, inputs.corePin) };
    return r;
  });
}

/** DECL-03: one digest of what the service reads when it starts: its unit, its env file, its
 *  program, its account's provider group and the pin of Core's key (read from the node's
 *  identity at start, TRUST-01). A different digest means a restart. Without a pin the digest is
 *  what it was before pins existed, so an upgrade alone restarts nothing. */
function serviceInputs(
  service: ServiceResource,
  digests: { unit: string; env: string | null; program: string },
  group: string,
  corePin: string | null,
): string {
  const pin = corePin === null ? {} : { core_pin: corePin };
  return sha256(JSON.stringify({ service: service.unit, ...digests, groups: [group], ...pin }));
}

function rootDir(
  key: string,
  phase: 'home' | 'program',
  title: string,
  path: string,
  mode: number,
  ownedByNode: boolean,
  removal: 'tree' | 'empty',
): DirectoryResource {
  return { kind: 'directory', key, phase, title, path, mode, madeBy: 'root', ownedByNode, removal };
}

/** A directory the node half makes for itself, 0700 (HOST-04), as its own user: no chown. */
export function nodeDir(
  key: string,
  title: string,
  path: string,
  removal: 'tree' | 'empty' = 'tree',
): DirectoryResource {
  return {
    kind: 'directory',
    key,
    phase: 'prepare',
    title,
    path,
    mode: 0o700,
    madeBy: 'node',
    ownedByNode: false,
    removal,
  };
}
