// The release an install takes its files from: the console's manifest, or (OFFLINE-01) the
// bundle the operator named, checked whole before anything changes: of the release Core's
// configuration names, with every file the provider needs of the manifest's size and SHA-256.
import { fetchManifest, releaseOf } from '../src/node/node-files.ts';
import { verifyBundle } from '../src/bundle/bundle.ts';
import type { NodeConfiguration } from '../src/net/core-schemas.ts';
import type { ReleaseManifest } from '../src/net/release-manifest.ts';
import type { InstallContext } from './install-context.ts';

export async function releaseManifest(
  ctx: InstallContext,
  configuration: NodeConfiguration,
): Promise<ReleaseManifest> {
  // Once per run for a configuration: preflight reads it twice, a saved plan once more.
  if (ctx.manifest?.configuration === configuration) return ctx.manifest.manifest;
  const manifest = await manifestOf(ctx, configuration);
  ctx.manifest = { configuration, manifest };
  return manifest;
}

async function manifestOf(
  ctx: InstallContext,
  configuration: NodeConfiguration,
): Promise<ReleaseManifest> {
  const { bundle } = ctx.options;
  if (bundle === undefined)
    return fetchManifest(new URL(ctx.options.coreUrl).origin, configuration, ctx.options.proxyEnv);
  if (ctx.bundleVerified !== true) {
    const manifestSha256 = ctx.options.bundleManifestSha256 ?? '';
    const release = releaseOf(configuration);
    await verifyBundle(bundle, { manifestSha256, release }, configuration.provider);
    ctx.bundleVerified = true;
  }
  return bundle.manifest;
}
