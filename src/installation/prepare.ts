// `oac-node _prepare`: the install work that runs as oac-node, in its own session without a
// terminal (HOST-08). It reads the release manifest, computes its desired state
// (node-desired.ts) and reconciles it with the same loop and drivers as root; events go to
// stdout as NDJSON for the installer to render.
import type { NodeContext } from '../node/drivers/node-context.ts';
import type { Emit } from '../core/events.ts';
import { reconcileNode } from '../node/reconcile.ts';
import type { RunReport } from '../core/apply.ts';
import { failedEvent } from '../core/run-step.ts';
import { Host } from '../host/host.ts';
import { layout, parseInstallationId } from '../layout.ts';
import type { ReleaseManifest } from '../net/release-manifest.ts';
import { redactor } from '../redact.ts';
import { withDigestFile } from '../node/digest-file.ts';
import { fetchManifest, releaseOf as releaseOfConfiguration } from '../node/node-files.ts';
import { bundleFromRoot, type Bundle } from '../bundle/bundle.ts';
import { sizeOfFd } from '../host/bundle-file.ts';
import { oacError } from '../messages.ts';
import { generationResources, nodeHalfDesired } from '../node/node-desired.ts';
import { stageManifest } from '../node/staged.ts';
import '../built-fault.ts';
import type { PrepareRequest } from '../node/prepare-request.ts';

export { networkName } from '../node/prepare-context.ts';

export async function prepare(
  req: PrepareRequest,
  emit: Emit,
  options: { dryRun: boolean; signal?: AbortSignal },
): Promise<RunReport> {
  const { dryRun, signal } = options;
  if (req.token !== null) redactor.add(req.token);
  // UPG-02's test release whose node half fails once it applies (src/built-fault.ts).
  if (typeof OAC_BUILT_FAULT === 'string' && OAC_BUILT_FAULT === 'prepare-fails' && !dryRun)
    throw new Error('this test build fails as it prepares the node (--fault prepare-fails)');
  const { manifest, bundle } = await reportedAsStep(emit, () => releaseOf(req));
  const ctx: Omit<NodeContext, 'digests'> = {
    // The request's paths are this host's already (root mapped them, --root included), and
    // every path of this run is the request's: the layout's name this host's own `/` even
    // under --root (#23).
    host: new Host('/'),
    layout: layout(parseInstallationId(req.installation_id)),
    emit,
    signal,
    prepare: { req, manifest, ...(bundle === undefined ? {} : { bundle }) },
  };
  // A staged release: what the rollout needs of it, and its manifest kept for the rollout.
  const resources = req.stage ? generationResources(req, manifest) : nodeHalfDesired(req, manifest);
  const report = await withDigestFile(ctx, req.state_dir, dryRun, (withDigests) =>
    reconcileNode(resources, withDigests, { dryRun, emit, signal }),
  );
  // Kept on every install from a bundle, not only a staging: a later change of configuration
  // within the same release then needs no console either (src/node/staged.ts).
  if (req.bundle !== null && !dryRun) await stageManifest(req.state_dir, manifest);
  return report;
}

/** The release: the bundle root opened for us (fd 3; root verified it, and every file copied
 *  from it is verified again), or the manifest from the console. */
async function releaseOf(
  req: PrepareRequest,
): Promise<{ manifest: ReleaseManifest; bundle?: Bundle }> {
  if (req.bundle === null)
    return { manifest: await fetchManifest(req.console_url, req.configuration, req.proxy_env) };
  const { fd, label, manifest } = req.bundle;
  const wanted = releaseOfConfiguration(req.configuration);
  if (manifest.release !== wanted)
    throw oacError('bundle_other_release', { path: label, theirs: manifest.release, ours: wanted });
  const bundle = await bundleFromRoot(fd, await sizeOfFd(fd), label, manifest);
  return { manifest: bundle.manifest, bundle };
}

/** Its failure reported like a step's, so the installer shows its message. */
async function reportedAsStep<T>(emit: Emit, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    emit(failedEvent('manifest', error));
    throw error;
  }
}
