// The provider file the installer (and, for a new generation, the node itself) writes: the
// configuration Core gave plus the host's adapter, in one canonical text, so that the same
// inputs always give the same bytes (a rerun compares them).
import { dockerAdapter } from './prepare-docker.ts';
import { microsandboxAdapter } from './prepare-microsandbox.ts';
import type { PrepareContext } from './prepare-context.ts';

export function providerFileText(ctx: PrepareContext): string {
  const config = ctx.req.configuration;
  const adapter = config.provider === 'docker' ? dockerAdapter(ctx) : microsandboxAdapter(ctx);
  const file = {
    provider: config.provider,
    installation_id: config.installation_id,
    core_url: config.core_url,
    generation: config.generation,
    specification: config.specification,
    adapter,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}
