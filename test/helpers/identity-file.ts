// A registered node's identity file as the node half writes it (src/node/identity-store.ts), for
// tests that plant one in a scratch root: the node's own fields, Core's answer to its
// enrollment, and the configuration it approved.
export interface IdentityFields {
  nodeId: string;
  installationId: string;
  credential: string;
  coreUrl: string;
}

export function registeredIdentity(
  f: IdentityFields,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    format: 1,
    node_id: f.nodeId,
    credential: f.credential,
    core_url: f.coreUrl,
    installation_id: f.installationId,
    name: 'node-1',
    provider: 'docker',
    managed: true,
    created_at: '2026-12-03T00:00:00Z',
    enrolled: {
      node_id: f.nodeId,
      installation_id: f.installationId,
      provider: 'docker',
      deployment_generation: 1,
      specification_digest: `sha256:${'0'.repeat(64)}`,
      max_active: 4,
      max_retained: 8,
    },
    approved: { provider_file_digest: 'x', generation: 1, specification: {} },
    ...extra,
  };
}
