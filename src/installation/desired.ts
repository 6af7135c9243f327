// The desired state of one installation (DECL-01): a pure function from the inputs (Core's
// configuration: the provider; the options: Core's address, proxy settings, checkpoint store;
// the executable being installed) to the ordered list of resources. `resourceShape` is the same
// list without the properties only an install knows (content and digests): status and uninstall
// start from it and fill in what the journal recorded, so no command re-derives intent.
import {
  DOCKER_SOCKET,
  NODE_HOME,
  NODE_UID,
  NODE_USER,
  NOLOGIN,
  PATH_COMMAND,
  PROGRAM_ROOT,
  PROVIDER_GROUPS,
  layout as layoutOf,
  parseInstallationId,
  type Layout,
} from '../layout.ts';
import { envFileDigest, renderEnvFile } from '../../records/env-file.ts';
import type { DirectoryResource, ServiceResource } from '../resources/resources.ts';
import type { RootResource } from './root-context.ts';
import type { NodeResource } from '../node/drivers/node-context.ts';
import type { PrepareRequest } from '../node/prepare-request.ts';
import type { ReleaseManifest } from '../net/release-manifest.ts';
import { KEYS } from '../resources/keys.ts';
import {
  nodeAccountShape,
  nodeHalfDesired,
  type NodeAccountPaths,
  type Provider,
} from '../node/node-desired.ts';
import { renderUnit } from '../resources/unit-file.ts';
import { PATH_COMMAND_MARK, renderPathCommand } from '../resources/path-command.ts';
import { MAN_DIR, MAN_PAGE_MARK, MAN_PAGE_PATH, renderManPage } from '../resources/man-page.ts';
import { sha256 } from '../resources/sha256.ts';

export { KEYS } from '../resources/keys.ts';
export { nodeDir, type Provider } from '../node/node-desired.ts';

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
  /** The executable to install as the node program, its SHA-256 and its version (UPG-01). */
  program: { source: string; sha256: string; version?: string };
}

/** One item of the installation's desired value: a resource and the account that applies it.
 *  Root applies its own; the node half (`oac-node _prepare`, HOST-08) applies the node
 *  account's, and reports its plan for them to root as data. Of the node account's, root
 *  records (and uninstall removes) the ones `recorded` marks: the node's directories, its
 *  network and its store; the rest lie inside them. */
export type DesiredItem =
  | { account: 'root'; resource: RootResource }
  | { account: 'oac-node'; resource: NodeResource; recorded: boolean };

/** The node half's part of an install's value: its request (as root sends it) and the release. */
export interface NodePartInputs {
  request: PrepareRequest;
  manifest: ReleaseManifest;
}

/** The installation's desired value (DECL-01): every resource, root's and the node account's,
 *  in the order install applies them (uninstall reverses it). Without `node` (status,
 *  uninstall, or root before it knows the release), the node account's part is what root
 *  records of it, which needs no release. */
export function installationDesired(inputs: DesiredInputs, node?: NodePartInputs): DesiredItem[] {
  const shape = { provider: inputs.provider, groups: [inputs.group] };
  const part =
    node === undefined
      ? nodeAccountShape(layoutPaths(inputs.layout), inputs.provider)
      : nodeHalfDesired(node.request, node.manifest);
  return [
    ...filled(rootHead(inputs.layout, shape), inputs),
    ...nodeItems(part, inputs.provider),
    ...filled(rootTail(inputs.layout, shape), inputs),
  ];
}

/** Root's view of the value: its own resources, the node account's it records, and one step
 *  after them where the node half runs (it applies the whole of its part in one child). */
export function rootView(items: DesiredItem[]): RootResource[] {
  const last = items.findLastIndex((i) => i.account === 'oac-node');
  return items.flatMap((item, index): RootResource[] => {
    const own = item.account === 'root' || item.recorded ? [item.resource as RootResource] : [];
    return index === last ? [...own, NODE_STEP] : own;
  });
}

/** The node account's part of the value: what `oac-node _prepare` reconciles. */
export function nodePart(items: DesiredItem[]): NodeResource[] {
  return items.flatMap((i) => (i.account === 'oac-node' ? [i.resource] : []));
}

/** Every resource of an installation as root sees it, in the order install applies them
 *  (uninstall reverses it), with identities and no content: the value without its inputs. */
export function resourceShape(layout: Layout, shape: Shape): RootResource[] {
  return rootView([
    ...rootHead(layout, shape).map(asRoot),
    ...nodeItems(nodeAccountShape(layoutPaths(layout), shape.provider), shape.provider),
    ...rootTail(layout, shape).map(asRoot),
  ]);
}

const asRoot = (resource: RootResource): DesiredItem => ({ account: 'root', resource });

function nodeItems(part: NodeResource[], provider: Provider | undefined): DesiredItem[] {
  const recorded = new Set(nodeAccountShape(layoutPaths(undefined), provider).map((r) => r.key));
  return part.map((resource) => ({
    account: 'oac-node',
    resource,
    recorded: recorded.has(resource.key),
  }));
}

/** The node half's run, in root's view (its driver: src/installation/node-half.ts): install
 *  plans it in the desired value, status beside what the journal records. */
export const nodeStep = (): RootResource => NODE_STEP;
const NODE_STEP: RootResource = {
  kind: 'node',
  key: KEYS.node,
  phase: 'prepare',
  title: 'Node files, Runtime image, network and registration (as oac-node)',
};

function layoutPaths(layout: Layout | undefined): NodeAccountPaths {
  const names = layout ?? LAYOUT_FOR_KEYS;
  return {
    installationId: names.id,
    stateDir: names.stateDir,
    store: names.store,
    socket: DOCKER_SOCKET,
  };
}

/** Any installation's layout: the keys of the node account's recorded resources are the same
 *  for every installation. */
const LAYOUT_FOR_KEYS = layoutOf(parseInstallationId('keys'));

/** Root's resources before the node half: the account, its groups, home and the program. */
function rootHead(layout: Layout, shape: Shape): RootResource[] {
  const groups = shape.groups ?? Object.values(PROVIDER_GROUPS);
  return [
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
    {
      kind: 'directory',
      key: KEYS.manDir,
      phase: 'program',
      title: 'Manual pages',
      path: MAN_DIR,
      mode: 0o755,
      madeBy: 'host',
      ownedByNode: false,
      removal: 'empty',
    },
    {
      kind: 'file',
      key: KEYS.manPage,
      phase: 'program',
      title: 'Manual page oac-node(1)',
      path: MAN_PAGE_PATH,
      mode: 0o644,
      mark: MAN_PAGE_MARK,
      parentPlanned: true,
      optional: true,
    },
  ];
}

/** Root's resources after the node half: the proxy settings, the unit and the service. */
function rootTail(layout: Layout, shape: Shape): RootResource[] {
  const groups = shape.groups ?? Object.values(PROVIDER_GROUPS);
  return [
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
  ];
}

/** Root's resources with every property an install knows filled in. */
function filled(resources: RootResource[], inputs: DesiredInputs): DesiredItem[] {
  const { layout } = inputs;
  const unit = renderUnit({
    layout,
    coreUrl: inputs.coreUrl,
    provider: inputs.provider,
    checkpointRoot: inputs.checkpointRoot,
  });
  const env = renderEnvFile(inputs.proxyEnv, inputs.envKey);
  const pathCommand = renderPathCommand();
  const manPage = renderManPage();
  const digests = {
    unit: sha256(unit),
    // Keyed: the file holds proxy credentials (issue #27 finding 5).
    env: env === undefined ? null : (envFileDigest(env) ?? null),
    program: inputs.program.sha256,
  };
  return resources.flatMap((r) => {
    // UPG-02: the program this run replaces, kept first (src/installation/previous-program.ts).
    if (r.key === KEYS.program && r.kind === 'file')
      return [
        asRoot({
          kind: 'previous-program',
          key: KEYS.previousProgram,
          phase: 'program',
          title: 'Node program kept during an upgrade',
          path: layout.previousProgram,
          program: r.path,
          sha256: digests.program,
        }),
        asRoot({
          ...r,
          sha256: digests.program,
          copyFrom: inputs.program.source,
          ...(inputs.program.version === undefined ? {} : { version: inputs.program.version }),
        }),
      ];
    if (r.key === KEYS.pathCommand && r.kind === 'file')
      return asRoot({ ...r, sha256: sha256(pathCommand), content: pathCommand });
    if (r.key === KEYS.manPage && r.kind === 'file')
      return asRoot({ ...r, sha256: sha256(manPage), content: manPage });
    if (r.key === KEYS.envFile && r.kind === 'file')
      return asRoot({ ...r, sha256: digests.env, ...(env === undefined ? {} : { content: env }) });
    if (r.kind === 'unit') return asRoot({ ...r, sha256: digests.unit, content: unit });
    if (r.kind === 'service')
      return [
        asRoot({ ...r, inputs: serviceInputs(r, digests, inputs.group, inputs.corePin) }),
        // UPG-02: an upgrade settled last, also after a failed step
        // (src/installation/upgrade-rollback.ts).
        asRoot({
          kind: 'upgrade-rollback',
          key: KEYS.upgradeRollback,
          phase: 'ready',
          title: 'Keep the new program once ready, or roll back',
          path: layout.previousProgram,
          unit: r.unit,
          settles: true,
          ...(inputs.program.version === undefined ? {} : { version: inputs.program.version }),
        }),
      ];
    return asRoot(r);
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
