// The node half's desired state (DECL-01, HOST-08): a pure function from the installer's request
// and the release manifest to what `oac-node _prepare` makes as oac-node: its state and files
// directories; for Docker the Runtime image and the network; for microsandbox its three files,
// the store with its runtime home and checkpoints, and the image imported into the store; then
// the provider file and the registration. It reconciles these with the same loop and drivers as
// root (src/installation/reconcile.ts), without a journal: root records what of it can be removed.
import { join } from 'node:path';
import { nodeDir } from './desired.ts';
import type { NodeResource } from '../node/drivers/context.ts';
import { NETWORK_LABEL } from '../layout.ts';
import type { ReleaseManifest } from '../net/release-manifest.ts';
import { runtimeImageFile } from '../node/node-files.ts';
import {
  dockerSocket,
  networkName,
  preparePaths,
  type PrepareContext,
} from '../node/prepare-context.ts';
import {
  MICROSANDBOX_KINDS,
  fileOf,
  storeImageDir,
  storePaths,
} from '../node/prepare-microsandbox.ts';
import type { PrepareRequest } from '../node/prepare-request.ts';
import { providerFileText } from '../node/provider-file-text.ts';

export function nodeHalfDesired(req: PrepareRequest, manifest: ReleaseManifest): NodeResource[] {
  const paths = preparePaths(req);
  const list: NodeResource[] = [
    nodeDir('state', 'Node state directory', req.state_dir),
    nodeDir('files', 'Node files directory', paths.files),
    ...(req.configuration.provider === 'docker'
      ? dockerResources(req, manifest)
      : microsandboxResources(req, manifest)),
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
    },
  );
  return list;
}

/** What a new generation needs before the node can serve it (the rollout): everything but the
 *  provider file (switched by the rollout itself) and the registration. */
export function generationResources(
  req: PrepareRequest,
  manifest: ReleaseManifest,
): NodeResource[] {
  return nodeHalfDesired(req, manifest).filter(
    (r) => r.kind !== 'provider-file' && r.kind !== 'registration',
  );
}

function dockerResources(req: PrepareRequest, manifest: ReleaseManifest): NodeResource[] {
  const image = runtimeImageFile(manifest);
  const socket = dockerSocket(req);
  return [
    {
      kind: 'docker-image',
      key: 'runtime',
      phase: 'prepare',
      title: 'Runtime image',
      reference: image.image.reference,
      ids: [image.image.id, image.image.manifest_digest].filter(
        (x): x is string => x !== undefined,
      ),
      file: image.name,
      socket,
    },
    {
      kind: 'network',
      key: 'network',
      phase: 'prepare',
      title: 'Docker network',
      name: networkName(req.installation_id),
      socket,
      label: { key: NETWORK_LABEL, value: req.installation_id },
    },
  ];
}

function microsandboxResources(req: PrepareRequest, manifest: ReleaseManifest): NodeResource[] {
  const files = preparePaths(req).files;
  const store = storePaths(req);
  const image = runtimeImageFile(manifest);
  return [
    ...MICROSANDBOX_KINDS.map((kind): NodeResource => {
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
    }),
    nodeDir('store', 'microsandbox store', store.store),
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
