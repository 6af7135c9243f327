// What the steps of `oac-node _prepare` share: the request from the installer, the event sink,
// the release manifest once read, and the paths they derive from the request.
import { join } from 'node:path';
import type { Emit } from '../engine/events.ts';
import type { Step } from '../engine/step.ts';
import type { ReleaseManifest } from '../net/release-manifest.ts';
import { fetchManifest } from './node-files.ts';
import { STATE_FILES, layout, parseInstallationId } from '../layout.ts';
import type { PrepareRequest } from './prepare-request.ts';

export interface PrepareContext {
  req: PrepareRequest;
  emit: Emit;
  manifest?: ReleaseManifest;
}

export type PrepareStep = Step<PrepareContext, never>;

export const preparePaths = (req: PrepareRequest) => ({
  providerFile: join(req.state_dir, STATE_FILES.provider),
  files: join(req.state_dir, STATE_FILES.files),
});

/** The Docker network of the request's installation (src/layout.ts names it). */
export function networkName(installationId: string): string {
  return layout(parseInstallationId(installationId)).network;
}

/** The release manifest, read once per run from the console (DL-01). */
export async function manifestOf(ctx: PrepareContext): Promise<ReleaseManifest> {
  ctx.manifest ??= await fetchManifest(
    ctx.req.console_url,
    ctx.req.configuration,
    ctx.req.proxy_env,
  );
  return ctx.manifest;
}

/** The manifest a probe has already read (plans and applies run after their probe). */
export function knownManifest(ctx: PrepareContext): ReleaseManifest {
  if (ctx.manifest === undefined) throw new Error('the manifest is read by the probe');
  return ctx.manifest;
}
