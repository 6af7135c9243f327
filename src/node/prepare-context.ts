// What the node half works from: the request from the installer (or the rollout) and the
// release manifest, read once per run from the console (DL-01); the paths it derives from them.
import { layout, parseInstallationId, stateFile } from '../layout.ts';
import type { ReleaseManifest } from '../net/release-manifest.ts';
import type { PrepareRequest } from './prepare-request.ts';

export interface PrepareContext {
  req: PrepareRequest;
  manifest: ReleaseManifest;
}

export const preparePaths = (req: PrepareRequest) => ({
  providerFile: stateFile(req.state_dir, 'provider'),
  files: stateFile(req.state_dir, 'files'),
});

/** The Docker network of the request's installation (src/layout.ts names it). */
export function networkName(installationId: string): string {
  return layout(parseInstallationId(installationId)).network;
}

/** The socket path of a `unix:///path` Docker host. */
export function dockerSocket(req: PrepareRequest): string {
  return req.docker_host.replace(/^unix:\/\//, '');
}
