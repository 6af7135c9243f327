// Fixed inputs of the node half's desired value (src/node/node-desired.ts): a release manifest
// and `_prepare` requests, each parsed with the schema the node half parses them with (SEC-04),
// so a fixture that drifts from the schema fails here rather than testing an impossible input.
// Shared by the node half's diff tests and the golden test of the desired value.
import { prepareRequest, type PrepareRequest } from '../../src/node/prepare-request.ts';
import { releaseManifestSchema } from '../../src/net/release-manifest.ts';

export const RELEASE = '0.1.0-0123456789ab';
const PREFIX = `oac-${RELEASE}-linux-amd64`;
const hex = (c: string) => c.repeat(64);

export const MANIFEST = releaseManifestSchema.parse({
  format: 1,
  release: RELEASE,
  created_at: '2025-01-02T03:04:05.000Z',
  files: [
    {
      name: `oac-node-${RELEASE}-linux-amd64.gz`,
      size: 1000,
      sha256: hex('1'),
      kind: 'node-program',
      provider: 'any',
    },
    {
      name: `${PREFIX}-runtime.tar.gz`,
      size: 2000,
      sha256: hex('2'),
      kind: 'runtime-image',
      provider: 'any',
      image: {
        reference: `oac-runtime:${RELEASE}`,
        id: `sha256:${hex('3')}`,
        unpacked_size: 4000,
        manifest_digest: `sha256:${hex('4')}`,
      },
    },
    {
      name: `${PREFIX}-microsandbox-runtime.bin`,
      size: 500,
      sha256: hex('5'),
      kind: 'microsandbox-runtime',
      provider: 'microsandbox',
    },
    {
      name: `${PREFIX}-microsandbox-firmware.bin`,
      size: 600,
      sha256: hex('6'),
      kind: 'microsandbox-firmware',
      provider: 'microsandbox',
    },
    {
      name: `${PREFIX}-microsandbox-helper`,
      size: 700,
      sha256: hex('7'),
      kind: 'microsandbox-helper',
      provider: 'microsandbox',
    },
  ],
});

export const PIN = `sha256:${hex('c')}`;

/** The request root hands `_prepare` for installation `inst-1` (the paths of src/layout.ts). */
export function nodeRequest(
  provider: 'docker' | 'microsandbox',
  options: { checkpointRoot?: string; corePin?: string } = {},
): PrepareRequest {
  return prepareRequest.parse({
    installation_id: 'inst-1',
    core_url: 'https://core.example',
    core_pin: options.corePin ?? null,
    console_url: 'https://console.example',
    name: 'node-a',
    token: 'tok_0123456789abcdef',
    configuration: {
      installation_id: 'inst-1',
      provider,
      core_url: 'https://core.example',
      generation: 3,
      specification: {
        release: RELEASE,
        cpus: 2,
        memory_mib: 2048,
        root_disk_mib: 8192,
        environment_disk_mib: 1024,
        network: 'public',
      },
      specification_digest: `sha256:${hex('d')}`,
      max_active: 4,
      max_retained: 8,
    },
    state_dir: '/var/lib/oac-node/.oac/nodes/inst-1',
    store_dir: '/var/lib/oac-node/.oac/m',
    checkpoint_root: options.checkpointRoot ?? null,
    docker_host: 'unix:///var/run/docker.sock',
    proxy_env: {},
  });
}
