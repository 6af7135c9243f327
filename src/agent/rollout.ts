// Generation rollout (issue #6): when Core's target generation differs from the one the node
// serves, a node added by the command reads the target's configuration with its own credential,
// prepares what it needs through the installer's own desired state and drivers (the same resumable, verified,
// proxy-aware downloads, as oac-node), checks the result with the readiness checks, and reports
// `preparing`, then `ready` (and serves the target from then on) or `failed` with the readiness
// code. A failed preparation is retried 5 s, 10 s, 20 s … up to 30 minutes apart; a fix is picked
// up by the next attempt. The old generation keeps being served until the switch.
// A manually registered node serves only its registration's configuration: it prepares nothing,
// and Core shows it "Node software incompatible".
import { dirname } from 'node:path';
import type { NodeContext } from '../node/drivers/node-context.ts';
import type { EngineEvent } from '../core/events.ts';
import { reconcileNode } from '../node/reconcile.ts';
import { Host } from '../host/host.ts';
import { DOCKER_SOCKET, layout, parseInstallationId } from '../layout.ts';
import { isOacError } from '../errors.ts';
import type { CoreClient } from '../net/core-client.ts';
import { DockerUnavailable } from '../net/docker-api.ts';
import type { NodeSocket } from '../net/node-socket.ts';
import { proxyEnvFrom } from '../net/proxy-env.ts';
import { backoffDelay } from '../net/retry.ts';
import type { RegisteredIdentity } from '../node/identity-store.ts';
import { withDigestFile } from '../node/digest-file.ts';
import { fetchManifest, releaseOf } from '../node/node-files.ts';
import { stagedManifest } from '../node/staged.ts';
import { generationResources } from '../node/node-desired.ts';
import type { PrepareRequest } from '../node/prepare-request.ts';
import { parseProviderFile, type ProviderFile } from '../node/provider-file.ts';
import { providerFileText } from '../node/provider-file-text.ts';
import { checkReadiness, type ReadinessCode } from '../node/readiness.ts';
import { loadServing, switchServing, type Serving } from '../node/serving.ts';
import { loadProviderFile } from '../node/load-provider-file.ts';
import { releaseOldGenerations } from '../node/release-generations.ts';

export type RolloutState = 'preparing' | 'ready' | 'failed';

export interface RolloutOptions {
  stateDir: string;
  configPath: string;
  identity: RegisteredIdentity;
  client: CoreClient;
  log: (line: string) => void;
  /** Called after the node switched to a new generation (readiness is reported again). */
  onSwitched: () => void;
  /** First retry delay; tests shorten it. */
  retryBaseMs?: number;
}

const MAX_RETRY_MS = 30 * 60_000;

export class Rollout {
  private target: number | undefined;
  private attempt = 0;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private releaseTimer: NodeJS.Timeout | undefined;
  private socket: NodeSocket | undefined;
  /** Aborted by stop(): a preparation under way stops at its next step (and a download keeps
   *  its part, OPS-03); nothing is started or scheduled after it. */
  private readonly stopping = new AbortController();
  private last:
    { generation: number; state: RolloutState; diagnostic: ReadinessCode | null } | undefined;

  constructor(private readonly options: RolloutOptions) {}

  /** A new connection: the last report for the current target is sent again. */
  attach(socket: NodeSocket): void {
    this.socket = socket;
    if (this.last !== undefined && this.last.generation === this.target) this.send(this.last);
    this.releaseSoon();
  }

  /** Ends the rollout: resolves once no preparation runs any more, so that run releases the
   *  state directory's lock only then (a preparation left running kept scheduling retries and
   *  the process never exited after SIGTERM). */
  async stop(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.timer);
    clearTimeout(this.releaseTimer);
    this.socket = undefined;
    await this.running?.catch(() => undefined);
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** From `welcome` and `target`. */
  setTarget(generation: number): void {
    if (!this.options.identity.managed) {
      if (generation !== this.options.identity.approved.generation && generation !== this.target)
        this.options.log(
          `Core's configuration is now generation ${generation}; a manually registered node serves only its registration's configuration`,
        );
      this.target = generation;
      return;
    }
    if (generation === this.target) return;
    this.target = generation;
    this.attempt = 0;
    clearTimeout(this.timer);
    this.kick();
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.running !== undefined) return; // the loop re-checks the target when it ends
    this.running = this.prepareTarget().finally(() => {
      this.running = undefined;
    });
  }

  private async prepareTarget(): Promise<void> {
    const target = this.target;
    if (target === undefined || this.stopped) return;
    const serving = await loadServing(this.options.stateDir, this.options.identity);
    if (serving.generation === target) {
      // Served already: switched by an earlier process that stopped before it could report
      // (Core would otherwise show the target "preparing" for good).
      const last = this.last;
      if (last?.generation !== target || last.state !== 'ready')
        this.send({ generation: target, state: 'ready', diagnostic: null });
      return this.releaseOld();
    }
    this.send({ generation: target, state: 'preparing', diagnostic: null });
    this.options.log(`Preparing generation ${target} (serving ${serving.generation})`);
    const diagnostic = await this.prepare(target, serving);
    if (this.stopped) return; // the next start prepares it again, resuming what was kept
    // The target moved on meanwhile: prepared within this same run (kick() would see this one
    // still running and do nothing).
    if (this.target !== target) return this.prepareTarget();
    if (diagnostic === null) {
      this.send({ generation: target, state: 'ready', diagnostic: null });
      this.options.log(`Generation ${target} is ready; serving it from now on`);
      this.options.onSwitched();
      this.releaseSoon(); // after Core has taken the report: it then no longer needs the old one
      return;
    }
    this.send({ generation: target, state: 'failed', diagnostic });
    this.attempt += 1;
    const delay = Math.min(
      MAX_RETRY_MS,
      backoffDelay(
        {
          attempts: Infinity,
          baseDelayMs: this.options.retryBaseMs ?? 5000,
          maxDelayMs: MAX_RETRY_MS,
        },
        this.attempt,
      ),
    );
    this.options.log(`Retrying generation ${target} in ${Math.round(delay / 1000)} s`);
    this.timer = setTimeout(() => this.kick(), delay);
  }

  /** Prepares `target`; null when it is verified ready (and now served), else the code. */
  private async prepare(target: number, serving: Serving): Promise<ReadinessCode | null> {
    const { identity, client, stateDir } = this.options;
    let current: ProviderFile;
    try {
      current = await loadProviderFile(this.options.configPath);
      const configuration = await client.readConfiguration(
        { kind: 'node', nodeId: identity.node_id, credential: identity.credential },
        target,
      );
      const req = requestFor(identity, stateDir, current, configuration);
      // OFFLINE-01: a release staged from a bundle needs no console.
      const manifest =
        (await stagedManifest(stateDir, releaseOf(configuration))) ??
        (await fetchManifest(req.console_url, configuration, req.proxy_env, this.stopping.signal));
      const emit = (event: EngineEvent) => {
        if (event.type === 'note') this.options.log(event.message);
      };
      // The installer's own desired state and drivers, as oac-node (this process), on the
      // paths of the request (this node's --state-dir), never the layout's (#23).
      const ctx: Omit<NodeContext, 'digests'> = {
        host: new Host('/'),
        layout: layout(parseInstallationId(req.installation_id)),
        emit,
        signal: this.stopping.signal,
        prepare: { req, manifest },
      };
      await withDigestFile(ctx, req.state_dir, false, (withDigests) =>
        reconcileNode(generationResources(req, manifest), withDigests, {
          dryRun: false,
          emit,
          signal: this.stopping.signal,
        }),
      );
      if (this.stopped) return null; // not switched: checked and switched by the next start
      const text = providerFileText({ req, manifest });
      const readiness = await checkReadiness(parseProviderFile(text, `generation ${target}`));
      if (readiness.code !== null) {
        this.options.log(`Generation ${target}: ${readiness.code} (${readiness.detail})`);
        return readiness.code;
      }
      // Not switched when stopping (the next start prepares and checks again) or when Core's
      // target moved on meanwhile: serving a generation Core no longer asks for, unreported,
      // would leave Core placing work by the one it thinks is served.
      if (this.stopped || this.target !== target) return null;
      await switchServing(stateDir, serving, text);
      return null;
    } catch (error) {
      if (this.stopped) {
        this.options.log(`Generation ${target}: stopped; the next start continues it`);
        return null;
      }
      const code = diagnosticOf(error, identity.provider);
      this.options.log(`Generation ${target}: ${code} (${reason(error)})`);
      return code;
    }
  }

  private releaseSoon(): void {
    if (this.stopped) return;
    clearTimeout(this.releaseTimer);
    this.releaseTimer = setTimeout(() => void this.releaseOld(), 2000);
  }

  /** Files of generations Core no longer needs go; a failure here only waits for next time. */
  private async releaseOld(): Promise<void> {
    const { stateDir, identity, client, log } = this.options;
    await releaseOldGenerations(stateDir, identity, client, log).catch((error: unknown) =>
      log(`Releasing old generations failed: ${reason(error)}`),
    );
  }

  private send(report: {
    generation: number;
    state: RolloutState;
    diagnostic: ReadinessCode | null;
  }): void {
    this.last = report;
    this.socket?.send({ type: 'rollout', ...report });
  }
}

/** What the installer's steps need, from the serving provider file: the same adapter inputs
 *  give the same provider file text an install of the target would write. */
function requestFor(
  identity: RegisteredIdentity,
  stateDir: string,
  current: ProviderFile,
  configuration: PrepareRequest['configuration'],
): PrepareRequest {
  const store = current.provider === 'microsandbox' ? dirname(current.adapter.runtime_home) : '/';
  const checkpoint =
    current.provider === 'microsandbox' ? (current.adapter.checkpoint_root ?? null) : null;
  return {
    installation_id: identity.installation_id,
    core_url: identity.core_url,
    core_pin: identity.core_pin ?? null,
    bundle: null,
    stage: false,
    console_url: identity.core_url,
    name: identity.name,
    token: null,
    configuration,
    // The service checked the host before it started (issue #40): the recorded ID is this one's.
    host_id: identity.host_id ?? null,
    same_host: false,
    state_dir: stateDir,
    store_dir: store,
    checkpoint_root: checkpoint === `${store}/checkpoints` ? null : checkpoint,
    docker_host: current.provider === 'docker' ? current.adapter.host : `unix://${DOCKER_SOCKET}`,
    proxy_env: proxyEnvFrom(process.env) as Record<string, string>,
    dry_run: false,
  };
}

/** The provider-neutral code Core shows for a failed preparation (NODE-04's codes). */
function diagnosticOf(error: unknown, provider: 'docker' | 'microsandbox'): ReadinessCode {
  if (error instanceof DockerUnavailable) return 'provider_unavailable';
  if (isOacError(error) && ['docker_unavailable', 'docker_network_refused'].includes(error.code))
    return 'provider_unavailable';
  return provider === 'docker' ? 'runtime_image_unavailable' : 'artifacts_unavailable';
}

function reason(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}
