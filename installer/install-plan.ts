// The plan of an install (DECL-01, DECL-05, issue #38): the one desired value from what
// preflight learned, every resource probed and diffed before the first write, with the removals
// of what the record lists but no longer wants (a node that never registered, now for a Core of
// another provider), and what the plan was made from, part by part (a saved plan's
// fingerprint). Nothing here writes: installer/install.ts applies it, or shows it (a dry run),
// or saves it (--plan-out).
import type { Refusal } from '../src/core/step.ts';
import { envFileKey, newEnvFileKey, readEnvFile } from '../records/env-file.ts';
import type { Journal } from '../records/journal.ts';
import { installationDesired, nodePart, rootView } from '../src/installation/desired.ts';
import { prepareRequest } from '../src/installation/node-half.ts';
import { recordedResources } from '../src/installation/recorded.ts';
import { madePlan, planFor, type CommandPlan } from '../src/installation/plan-for.ts';
import type { InstallContext as DriverInstallContext } from '../src/installation/root-context.ts';
import { fingerprintOf, type MadePlan, type PlanOptions } from '../src/installation/saved-plan.ts';
import type { Host } from '../src/host/host.ts';
import type { Layout } from '../src/layout.ts';
import { oacError } from '../src/messages.ts';
import { VERSION } from '../src/version.ts';
import type { InstallContext } from './install-context.ts';
import type { InstallRequest } from './install.ts';
import { releaseManifest } from './release.ts';
import { waitUntilReady } from './wait-ready.ts';

/** What `--plan-out` saves and `apply` compares: the options, the steps and the digests of the
 *  inputs. */
export interface MadeInstallPlan extends MadePlan {
  options: PlanOptions;
}

export interface PlannedInstallation {
  /** The plan (src/installation/plan-for.ts): the removals of what the record lists but no
   *  longer wants, then every wanted resource, and every diagnostic. */
  planned: CommandPlan;
  /** The drivers' context: the install's, with the node account's part root does not plan. */
  driverCtx: DriverInstallContext;
  made: MadeInstallPlan;
}

export async function planInstallation(
  ctx: InstallContext,
  req: InstallRequest & { corePin: string | null },
  /** Preflight's findings: the plan's first diagnostics. */
  diagnostics: Refusal[],
): Promise<PlannedInstallation> {
  const { host, layout: names, journal, emit, configuration, providerGroup } = ctx;
  if (configuration === undefined || providerGroup === undefined)
    throw new Error('preflight learns the configuration and the provider group');
  const installerSha256 = await selfSha256(journal);
  // The one desired value (DECL-01): root's resources and the node account's part, declared
  // from the same request the node half gets (in the layout's paths) and the release it reads.
  const nodeInputs = { ...req, configuration, providerGroup };
  const request = prepareRequest(
    { host, layout: names, node: nodeInputs },
    { dryRun: true, mapped: false },
  );
  const manifest = await releaseManifest(ctx, configuration);
  const items = installationDesired(
    {
      layout: names,
      provider: configuration.provider,
      group: providerGroup.name,
      coreUrl: req.coreUrl,
      corePin: req.corePin ?? null,
      checkpointRoot: req.checkpointRoot,
      proxyEnv: req.proxyEnv,
      envKey: await envKeyOf(host, names),
      // The running installer: hashed only when its stamp changed since a run hashed it.
      program: { source: process.execPath, sha256: installerSha256, version: VERSION },
    },
    { request, manifest },
  );
  const resources = rootView(items);
  // What root does not plan itself of the node account's part (it records and probes the
  // node's directories, network and store as its own steps).
  const part = nodePart(items.filter((i) => i.account === 'root' || !i.recorded));
  const node = { ...nodeInputs, part };
  // UPG-02: an upgrade's settling step waits for Core as the run does.
  const ready = (watch: { unit: string; invocation: string } | undefined) =>
    waitUntilReady(ctx, req.timeoutSeconds, req.signal, undefined, watch);
  const { earlyNodeProbe } = ctx;
  const driverCtx = {
    ...{ host, layout: names, journal, emit, node, signal: req.signal, ready },
    earlyNodeProbe,
  };
  const wanted = new Set(resources.map((r) => r.key));
  // The kept program of an upgrade is a step of the plan (wanted, so never stale): the plan's
  // last step drops it or puts it back once the run knows (src/installation/upgrade-rollback.ts).
  const stale = recordedResources(names, journal.snapshot).filter((r) => !wanted.has(r.key));
  // Planned before the first write (the journal's inputs included): a refusal changes nothing.
  // The removals of what the record lists but no longer wants are the plan's too, applied
  // first. No other installation's record can want any of it: preflight refused the run if one
  // were there (HOST-10, checkOneCore).
  const planInputs = { wanted: resources, removals: stale, diagnostics };
  const planned = await planFor('install', planInputs, driverCtx, {
    signal: req.signal,
    emit,
  });
  // DECL-05: what the plan was made from, part by part; `apply` compares it before any write.
  const planOptions = planOptionsOf(req);
  const saving = req.planOut === true || req.savedPlan !== undefined;
  const inputs = fingerprintOf({
    journal: journal.snapshot,
    configuration,
    // The release the node half will install (its manifest, from the console or the bundle).
    manifest: saving ? await releaseManifest(ctx, configuration) : undefined,
    options: planOptions,
    proxyEnv: req.proxyEnv,
    installerSha256,
  });
  return { planned, driverCtx, made: { options: planOptions, ...madePlan(planned, inputs) } };
}

/** The env file's digest key: the file's own, so a rerun rewrites nothing; a new one when there
 *  is no file, it carries none, or it is no regular file of ours (issue #27 finding 5). */
async function envKeyOf(host: Host, names: Layout): Promise<string> {
  const there = await readEnvFile(host, names.envFile).catch(() => undefined);
  return (there === undefined ? undefined : envFileKey(there)) ?? newEnvFileKey();
}

/** The options a saved plan keeps (never the token or a proxy credential). */
function planOptionsOf(req: InstallRequest & { corePin: string | null }): PlanOptions {
  return {
    core_url: req.coreUrl,
    installation_id: req.installationId,
    name: req.name,
    core_pin: req.corePin,
    checkpoint_root: req.checkpointRoot ?? null,
    ...(req.allowDowngrade === true ? { allow_downgrade: true as const } : {}),
    bundle:
      req.bundle === undefined
        ? null
        : {
            path: req.bundlePath ?? req.bundle.label,
            manifest_sha256: req.bundleManifestSha256 ?? '',
          },
  };
}

async function selfSha256(journal: Journal): Promise<string> {
  const sha256 = await journal.digests.sha256(process.execPath);
  if (sha256 === undefined) throw oacError('program_unreadable', { path: process.execPath });
  return sha256;
}
