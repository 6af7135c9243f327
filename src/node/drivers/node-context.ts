// The node half's context (issue #23: typed per half, nothing optional checked at run time):
// what its drivers need beyond the resource — the request from the installer (or the
// rollout), the release manifest, the bundle it installs from, and its own digest cache.
import type { Bundle } from '../../bundle/bundle.ts';
import type { DigestIndex } from '../../host/digest-index.ts';
import { stateFile } from '../../layout.ts';
import type { ReleaseManifest } from '../../net/release-manifest.ts';
import type { DriverContext } from '../../resources/driver.ts';
import type { ResourceOf } from '../../resources/resources.ts';
import type { PrepareRequest } from '../prepare-request.ts';

export interface NodeContext extends DriverContext {
  prepare: { req: PrepareRequest; manifest: ReleaseManifest; bundle?: Bundle };
  /** The node half's digest cache (in its state directory: src/node/digest-file.ts). */
  digests: DigestIndex;
}

export function prepareOf(ctx: NodeContext) {
  const { req, manifest, bundle } = ctx.prepare;
  const run = { req, manifest, bundle, emit: ctx.emit, signal: ctx.signal };
  return { req, manifest, run, filesDir: stateFile(req.state_dir, 'files') };
}

/** The kinds the node half makes (src/node/node-desired.ts lists them). */
export type NodeKind =
  | 'directory'
  | 'network'
  | 'docker-image'
  | 'node-file'
  | 'store-image'
  | 'provider-file'
  | 'registration';
export type NodeResource = ResourceOf<NodeKind>;
