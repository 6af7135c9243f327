// The Docker adapter of the provider file (the guide's fields): the Runtime image of the
// release, the node's network, the Docker socket. What the node half makes for Docker (the image,
// the network) is in node-desired.ts.
import { join } from 'node:path';
import { runtimeImageFile } from './node-files.ts';
import { networkName, type PrepareContext } from './prepare-context.ts';

export function dockerAdapter({ req, manifest }: PrepareContext) {
  return {
    host: req.docker_host,
    image: runtimeImageFile(manifest).image.reference,
    network: networkName(req.installation_id),
    extra_hosts: [],
    seccomp_file: join(req.state_dir, 'seccomp.json'),
    nested_sandbox: false,
  };
}
