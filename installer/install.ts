// `oac-node install`: lock, preflight, then reconcile the desired state (src/installation/desired.ts)
// with the host, then wait for Core's "connected and ready" (docs/design.md "Shape"). One installer
// at a time per host (SEC-05). A rerun of a registered node needs no token and changes nothing
// that already matches (RERUN-01); --dry-run prints the diffs and changes nothing (DECL-03).
import { Journal } from '../records/journal.ts';
import type { Emit, EngineEvent } from '../src/core/events.ts';
import { readNodeIdentity, refuseCopiedNode } from '../src/installation/node-state.ts';
import { hostIdOn } from '../src/node/host-id.ts';
import { confirmSameHost } from './same-host.ts';
import { applyPlanned, planFor } from '../src/installation/plan-for.ts';
import { KEYS } from '../src/installation/desired.ts';
import type { RunReport } from '../src/installation/reconcile.ts';
import { Host } from '../src/host/host.ts';
import { NODE_HOME, NODE_USER, layout, type Layout } from '../src/layout.ts';
import { oacError } from '../src/messages.ts';
import type { CoreAuth } from '../src/net/core-client.ts';
import { pinOrigin } from '../src/net/core-pin.ts';
import type { StagedReleaseResource } from '../src/resources/resources.ts';
import { releaseOf } from '../src/node/node-files.ts';
import type { InstallContext, InstallOptions } from './install-context.ts';
import { withInstallerLock } from '../records/installer-lock.ts';
import { preflight } from './preflight.ts';
import { Findings } from './preflight-findings.ts';
import { planInstallation, type MadeInstallPlan } from './install-plan.ts';
import {
  checkSavedPlan,
  planDigest,
  type SavedInstallPlan,
} from '../src/installation/saved-plan.ts';
import { waitUntilReady } from './wait-ready.ts';
import { refuseDowngrade } from './downgrade.ts';
import { noteLastRun, runStart } from './last-run.ts';

export interface InstallRequest extends InstallOptions {
  root: string;
  token: string | undefined;
  timeoutSeconds: number;
  /** DECL-05: a dry run whose plan the caller saves (InstallResult.plan). */
  planOut?: boolean;
  /** DECL-05: `apply`: the plan must be this one, from the same inputs, or nothing changes. */
  savedPlan?: SavedInstallPlan;
  /** Issue #39: set when the run noted itself in the record (installer/last-run.ts): its
   *  events are then kept too. */
  lastRun?: { noted: boolean };
  /** Issue #40: this host's ID (src/node/host-id.ts), read by install itself. */
  hostId?: string | null;
}

export interface InstallResult {
  report: RunReport;
  nodeId?: string;
  /** Core's provider, which the summary's notes depend on (SEC-08). */
  provider?: 'docker' | 'microsandbox';
  /** DECL-05 (--plan-out): the plan's steps and the digests of its inputs. */
  plan?: MadeInstallPlan;
}

/** What a run got to: its plan, and whether it began to write (after a clean plan). */
interface RunState {
  plan?: MadeInstallPlan;
  writing: boolean;
}

/** What a terminal shows, in order: preflight, each group of resources, the wait for Core. */
export const INSTALL_PHASES = [
  { id: 'preflight', title: 'Check the host, Core and the release' },
  { id: 'account', title: `Service account ${NODE_USER}` },
  { id: 'group', title: 'Provider group' },
  { id: 'home', title: `Home ${NODE_HOME}` },
  { id: 'program', title: 'Node program' },
  { id: 'prepare', title: 'Node files, Runtime image, network and registration (as oac-node)' },
  { id: 'proxy-settings', title: 'Proxy settings' },
  { id: 'unit', title: 'Service unit' },
  { id: 'service', title: 'Start the node service' },
  { id: 'ready', title: 'Wait until Core reports the node connected and ready' },
];

export async function install(given: InstallRequest, emit: Emit): Promise<InstallResult> {
  const host = new Host(given.root);
  const names = layout(given.installationId);
  // Issue #40: a copy of a node's host changes nothing (not even the lock's file), and asks Core
  // nothing.
  const hostId = await hostIdOn(host);
  if (given.sameHost !== true) await refuseCopiedNode(host, names, hostId);
  else await confirmSameHost(host, names, hostId, given.proxyEnv);
  return withInstallerLock(host, async () => {
    const req = { ...given, hostId, corePin: await corePinFor(host, names, given) };
    // TRUST-01: from here on Core's origin trusts the pin alone, before the token is sent.
    pinOrigin(req.coreUrl, req.corePin);
    const journal = await Journal.open(host, req.installationId, req.coreUrl);
    const ctx: InstallContext = {
      host,
      layout: names,
      options: req,
      journal,
      emit,
      token: req.token,
    };
    // OPS-03: the node half's early dry run, if nothing took it, ends with the run.
    return afterEarlyProbe(ctx, () => installLocked(ctx, req));
  });
}

async function installLocked(
  ctx: InstallContext,
  req: InstallRequest & { corePin: string | null },
): Promise<InstallResult> {
  const { journal, emit } = ctx;
  const findings = await preflight(ctx, await recordChecks(ctx, req.allowDowngrade === true));
  req.signal?.throwIfAborted();
  if (ctx.staging !== undefined) {
    // DECL-05: such a run plans only the staging (src/installation/staged-release.ts), which
    // is not the installation's plan: saving it, or applying one, would skip the rollout.
    if (req.planOut === true || req.savedPlan !== undefined)
      throw oacError('plan_while_staging', {
        release: ctx.configuration === undefined ? '?' : releaseOf(ctx.configuration),
        generation: ctx.staging.generation,
      });
    findings.stopIfAny();
    return stageForRollout(ctx, req, ctx.staging.generation);
  }
  const run: RunState = { writing: false };
  const start = runStart(journal);
  // UPG-02: an upgrade (this run's, or one a killed run left) is settled by the plan's last
  // step, also after a failed step: src/installation/upgrade-rollback.ts.
  const report = await reconcileInstallation(ctx, req, run, findings)
    .catch(async (error: unknown) => {
      if (run.writing && !req.dryRun)
        noted(req, await noteLastRun(journal, start, { changed: true, error }));
      throw error;
    })
    .finally(async () => {
      // Also after a failure or an interruption later in the run: once Core accepted the
      // node, the record must say so (a later loss of its state is then recognised). A
      // refused plan wrote nothing, and writes nothing now either (not even the digest cache).
      if (!run.writing) return;
      await recordRegisteredNode(ctx);
      await journal.saveDigests();
    });
  const provider = ctx.configuration?.provider;
  if (req.dryRun)
    return { report, provider, ...(run.plan === undefined ? {} : { plan: run.plan }) };
  // ENR-04: until Core lists the node ready (at once after an upgrade's settling step).
  emit(readyStart());
  const { nodeId } = await waitUntilReady(ctx, req.timeoutSeconds, req.signal).catch(
    async (error: unknown) => {
      // A run that changed the host and then did not see it ready failed (a rerun that
      // changed nothing writes nothing: RERUN-01).
      if (report.changed) noted(req, await noteLastRun(journal, start, { changed: true, error }));
      throw error;
    },
  );
  noted(req, await noteLastRun(journal, start, { changed: report.changed }));
  return { report, nodeId, provider };
}

async function afterEarlyProbe<T>(ctx: InstallContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await ctx.earlyNodeProbe?.cancel();
  }
}

function noted(req: InstallRequest, wrote: boolean): void {
  if (req.lastRun !== undefined) req.lastRun.noted ||= wrote;
}

/** The last phase's start: the wait for Core's "connected and ready". */
function readyStart(): EngineEvent {
  return {
    type: 'step-start',
    step: 'ready',
    title: INSTALL_PHASES.at(-1)?.title ?? 'ready',
    phase: 'ready',
  };
}

/** The pin this run trusts: the one given (`none`: null), else the one the node recorded, so a
 *  line without a pin (an older one, from the shell's history) never lowers a node's trust. */
async function corePinFor(host: Host, names: Layout, req: InstallRequest): Promise<string | null> {
  if (req.corePin !== undefined) return req.corePin;
  const identity = await readNodeIdentity(host, names).catch(() => undefined);
  if (identity === undefined || identity.core_url !== req.coreUrl) return null;
  return identity.core_pin ?? null;
}

/** OFFLINE-01: the node serves an older generation than Core's and this host cannot download
 *  the new release: the plan is one step, the release staged from the bundle by the node half
 *  with the service stopped meanwhile (src/installation/staged-release.ts); its rollout then
 *  finds everything in place at once, and the run waits until the node serves Core's generation
 *  and is ready. Nothing else of the installation changes in such a run (rerun the line for
 *  that). */
async function stageForRollout(
  ctx: InstallContext,
  req: InstallRequest & { corePin: string | null },
  generation: number,
): Promise<InstallResult> {
  const { configuration, providerGroup } = ctx;
  if (configuration === undefined || providerGroup === undefined)
    throw new Error('preflight learns the configuration and the provider group');
  const node = { ...req, configuration, providerGroup, stage: true };
  const stageCtx = { ...ctx, node, signal: req.signal };
  const staged: StagedReleaseResource = {
    kind: 'staged-release',
    key: 'stage',
    title: 'Stage the release for the rollout',
    phase: 'prepare',
    release: releaseOf(configuration),
    generation,
    unit: ctx.layout.unitName,
  };
  const options = { dryRun: req.dryRun, emit: ctx.emit, signal: req.signal };
  const planned = await planFor('install', { wanted: [staged] }, stageCtx, options);
  const report = await applyPlanned(planned, stageCtx, options);
  const provider = configuration.provider;
  if (req.dryRun) return { report, provider };
  ctx.emit(readyStart());
  const { nodeId } = await waitUntilReady(ctx, req.timeoutSeconds, req.signal, generation);
  return { report, nodeId, provider };
}

async function recordRegisteredNode(ctx: InstallContext): Promise<void> {
  const identity = await readNodeIdentity(ctx.host, ctx.layout).catch(() => undefined);
  if (identity?.enrolled !== undefined) await ctx.journal.setRegisteredNode(identity.node_id);
}

/** A registered node reads its configuration with its own credential; a new one with the token.
 *  A node this host registered whose state is gone is not registered again over what Core
 *  still holds for it (the guide: a lost node state is a recovery incident). */
async function authFor(ctx: InstallContext): Promise<CoreAuth> {
  const identity = await readNodeIdentity(ctx.host, ctx.layout);
  if (identity?.enrolled !== undefined)
    return { kind: 'node', nodeId: identity.node_id, credential: identity.credential };
  const lost = ctx.journal.get(KEYS.state) === undefined ? null : ctx.journal.registeredNode;
  if (lost !== null && (await ctx.host.lstat(ctx.layout.identityFile)) !== undefined) {
    // There, but not a file root may read as the node's (restored as root, a link): not lost.
    const path = ctx.host.path(ctx.layout.identityFile);
    const problem = 'it is not a regular file of oac-node with one link';
    throw oacError('node_file_damaged', { path, problem });
  }
  if (lost !== null) {
    const values = { node_id: lost, dir: ctx.layout.stateDir, id: ctx.layout.id };
    throw oacError('node_state_lost', values);
  }
  if (ctx.token === undefined) throw oacError('token_missing');
  return { kind: 'token', token: ctx.token };
}

/** What this host's records decide before Core is asked anything, every problem at once
 *  (issue #38): a downgrade not asked for (UPG-01), and how this run may ask Core (the node's
 *  credential; a lost or damaged node state; a token for a first install). */
async function recordChecks(ctx: InstallContext, allowDowngrade: boolean): Promise<CoreAuth> {
  const found = new Findings();
  await found.check(() => refuseDowngrade(ctx.journal, allowDowngrade));
  let auth: CoreAuth | undefined;
  await found.check(async () => (auth = await authFor(ctx)));
  found.stopIfAny();
  return auth ?? found.stop();
}

/** The install's plan (installer/install-plan.ts), applied: first what the journal records but
 *  is no longer wanted is removed, as uninstall would; then every wanted resource, in order. A
 *  dry run shows it; a refused plan writes nothing and stops with every refusal. */
async function reconcileInstallation(
  ctx: InstallContext,
  req: InstallRequest & { corePin: string | null },
  run: RunState,
  findings: Findings,
): Promise<RunReport> {
  const { journal, emit, configuration, providerGroup } = ctx;
  // Preflight's findings are the plan's first diagnostics; a plan that cannot be made beside
  // them (Docker down: no provider group; the release unreadable) stops with them, as preflight
  // would.
  if (configuration === undefined || providerGroup === undefined) return findings.stop();
  const { planned, driverCtx, made } = await planInstallation(ctx, req, findings.refusals()).catch(
    (error: unknown) => {
      findings.stopIfAny();
      throw error;
    },
  );
  if (req.savedPlan !== undefined) checkSavedPlan(req.savedPlan, made, journal.lastPlan);
  run.plan = made;
  run.writing = !req.dryRun && planned.diagnostics.length === 0;
  if (run.writing)
    await journal.setInputs({
      provider: configuration.provider,
      group: providerGroup.name,
      checkpoint_root: req.checkpointRoot ?? null,
    });
  const options = { dryRun: req.dryRun, emit, signal: req.signal };
  return applyPlanned(planned, driverCtx, options).finally(async () => {
    // A plan applied once is stale afterwards (its digest is the record's last applied plan),
    // also when its run failed or rolled back after it began to write.
    if (req.savedPlan !== undefined && run.writing)
      await journal.setLastPlan(planDigest(made.fingerprint));
  });
}
