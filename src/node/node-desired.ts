// The node half's desired state (DECL-01, HOST-08): a pure function from the installer's request
// and the release manifest to what `oac-node _prepare` makes as oac-node: its state and files
// directories; for Docker the Runtime image and the network; for microsandbox its three files,
// the store with its runtime home and checkpoints, and the image imported into the store; then
// the provider file and the registration. It reconciles these with the same loop and drivers as
// root (src/installation/reconcile.ts), without a journal: root records what of it can be removed.
import { dirname, join } from 'node:path';
import type { NodeResource } from './drivers/node-context.ts';
import { NETWORK_LABEL, layout as layoutOf, parseInstallationId } from '../layout.ts';
import type { DirectoryResource, NetworkResource } from '../resources/resources.ts';
import { KEYS } from '../resources/keys.ts';
import type { KindModule } from '../resources/kind.ts';
import { KINDS } from './kind-registry.ts';
import type { ReleaseManifest } from '../net/release-manifest.ts';
import { runtimeImageFile } from './node-files.ts';
import { dockerSocket, preparePaths, type PrepareContext } from './prepare-context.ts';
import { MICROSANDBOX_KINDS, fileOf, storeImageDir, storePaths } from './prepare-microsandbox.ts';
import type { PrepareRequest } from './prepare-request.ts';
import { providerFileText } from './provider-file-text.ts';

export type Provider = 'docker' | 'microsandbox';

/** The node account's part of the installation's value (desired.ts holds the whole): its
 *  recorded resources first (nodeAccountShape), each of the release's files and images in the
 *  directory it lies in, then the provider file and the registration. */
export function nodeHalfDesired(req: PrepareRequest, manifest: ReleaseManifest): NodeResource[] {
  const paths = preparePaths(req);
  const provider = req.configuration.provider;
  const shape = nodeAccountShape(requestPaths(req), provider);
  const recorded = (key: string) => shape.filter((r) => r.key === key);
  const list: NodeResource[] = [
    ...recorded(KEYS.nodeDirs[0]),
    ...recorded(KEYS.nodeDirs[1]),
    ...recorded(KEYS.state),
    nodeDir('files', 'Node files directory', paths.files),
    ...(provider === 'docker'
      ? [dockerImage(req, manifest), ...recorded(KEYS.network)]
      : [
          ...microsandboxFiles(req, manifest),
          ...recorded(KEYS.store),
          ...storeResources(req, manifest),
        ]),
  ];
  const ctx: PrepareContext = { req, manifest };
  list.push(
    {
      kind: 'provider-file',
      key: 'provider-file',
      phase: 'prepare',
      title: 'Provider file',
      path: paths.providerFile,
      content: providerFileText(ctx),
      stateDir: req.state_dir,
    },
    {
      kind: 'registration',
      key: 'enroll',
      phase: 'prepare',
      title: 'Register with Core',
      stateDir: req.state_dir,
      configPath: paths.providerFile,
      coreUrl: req.core_url,
      corePin: req.core_pin,
      name: req.name,
      hostId: req.host_id,
      sameHost: req.same_host,
    },
  );
  return list;
}

/** The request's paths: this host's, as root mapped them (`--root` included). */
function requestPaths(req: PrepareRequest): NodeAccountPaths {
  return {
    installationId: req.installation_id,
    stateDir: req.state_dir,
    store: req.store_dir,
    socket: dockerSocket(req),
  };
}

/** Where the node account's recorded resources lie: the layout's paths (root), or the ones the
 *  request maps them to (the node half, under `--root`). */
export interface NodeAccountPaths {
  installationId: string;
  stateDir: string;
  store: string;
  /** The Docker socket the network is made through. */
  socket: string;
}

/** The node account's resources root records (uninstall removes them), declared here once:
 *  the node half makes them (HOST-08) as the first items of its part, and root's view holds
 *  the same items. Undefined provider: both providers' (uninstall without a record). */
export function nodeAccountShape(
  paths: NodeAccountPaths,
  provider: Provider | undefined,
): (DirectoryResource | NetworkResource)[] {
  const nodes = dirname(paths.stateDir);
  const list: (DirectoryResource | NetworkResource)[] = [
    nodeDir(KEYS.nodeDirs[0], 'Node directories', dirname(nodes), 'empty'),
    nodeDir(KEYS.nodeDirs[1], 'Node directories', nodes, 'empty'),
    nodeDir(KEYS.state, 'Node state directory', paths.stateDir, 'tree'),
  ];
  if (provider !== 'microsandbox')
    list.push({
      kind: 'network',
      key: KEYS.network,
      phase: 'prepare',
      title: 'Docker network',
      name: layoutOf(parseInstallationId(paths.installationId)).network,
      socket: paths.socket,
      label: { key: NETWORK_LABEL, value: paths.installationId },
    });
  if (provider !== 'docker')
    list.push({
      ...nodeDir(KEYS.store, 'microsandbox store', paths.store, 'tree'),
      // UNI-05: a store kept (Core has not confirmed the node's removal) keeps its owner and
      // the directories it lies in (home/.oac/m: not .oac/nodes).
      needs: [KEYS.account, KEYS.home, KEYS.nodeDirs[0]],
    });
  return list;
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

/** What a new generation needs before the node can serve it (the rollout): everything but the
 *  provider file (switched by the rollout itself) and the registration. */
export function generationResources(
  req: PrepareRequest,
  manifest: ReleaseManifest,
): NodeResource[] {
  return nodeHalfDesired(req, manifest).filter((r) =>
    (KINDS[r.kind] as KindModule<NodeResource['kind']>).perGeneration(r),
  );
}

function dockerImage(req: PrepareRequest, manifest: ReleaseManifest): NodeResource {
  const image = runtimeImageFile(manifest);
  return {
    kind: 'docker-image',
    key: 'runtime',
    phase: 'prepare',
    title: 'Runtime image',
    reference: image.image.reference,
    ids: [image.image.id, image.image.manifest_digest].filter((x): x is string => x !== undefined),
    file: image.name,
    socket: dockerSocket(req),
  };
}

function microsandboxFiles(req: PrepareRequest, manifest: ReleaseManifest): NodeResource[] {
  const files = preparePaths(req).files;
  return MICROSANDBOX_KINDS.map((kind): NodeResource => {
    const file = fileOf(manifest, kind);
    return {
      kind: 'node-file',
      key: kind,
      phase: 'prepare',
      title: `microsandbox file ${file.name}`,
      path: join(files, file.name),
      file: file.name,
      sha256: file.sha256,
      executable: kind === 'microsandbox-helper',
    };
  });
}

/** Inside the store: its images, its runtime home, the checkpoints, and the imported image. */
function storeResources(req: PrepareRequest, manifest: ReleaseManifest): NodeResource[] {
  const store = storePaths(req);
  const image = runtimeImageFile(manifest);
  return [
    nodeDir('store-images', 'Store images', store.images),
    nodeDir('store-run', 'microsandbox runtime home', store.runtimeHome),
    req.checkpoint_root === null
      ? nodeDir('store-checkpoints', 'Node-local checkpoints', store.checkpoints)
      : {
          kind: 'directory',
          key: 'checkpoint-root',
          phase: 'prepare',
          title: 'Shared checkpoint store',
          path: req.checkpoint_root,
          mode: 0o700,
          madeBy: 'operator',
          ownedByNode: false,
          removal: 'empty',
        },
    {
      kind: 'store-image',
      key: 'runtime',
      phase: 'prepare',
      title: 'Runtime image in the microsandbox store',
      dir: storeImageDir(req, manifest),
      reference: image.image.reference,
      file: image.name,
    },
  ];
}
