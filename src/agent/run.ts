// `oac-node run` (NODE-02…05): one process per state directory keeps one connection to Core,
// reports readiness at start and on every heartbeat, reconnects with backoff while Core is
// unreachable, and exits 78 once Core refuses the node's credential (the node was removed).
import { EXIT } from '../errors.ts';
import { message, oacError } from '../messages.ts';
import { ensureDirectory } from '../host/files.ts';
import { CoreClient } from '../net/core-client.ts';
import { sharedDispatcher } from '../net/dispatcher.ts';
import { CoreError } from '../net/core-errors.ts';
import { openNodeSocket, type NodeSocket } from '../net/node-socket.ts';
import { backoffDelay } from '../net/retry.ts';
import { OutageLog, STABLE_MS } from './outage-log.ts';
import { redactor } from '../redact.ts';
import { PROGRAM, VERSION } from '../version.ts';
import {
  isRegistered,
  loadIdentity,
  saveIdentity,
  type RegisteredIdentity,
} from '../node/identity-store.ts';
import { ReadinessReporter } from './readiness-reporter.ts';
import '../built-fault.ts';
import { loadProviderFile } from '../node/load-provider-file.ts';
import { Rollout } from './rollout.ts';
import { finishSwitch, loadServing } from '../node/serving.ts';
import { lockStateDirectory } from '../node/state-lock.ts';
import { pinOrigin } from '../net/core-pin.ts';
import { MACHINE_ID_FILE, readHostId, refuseAnotherHost } from '../node/host-id.ts';

export interface RunRequest {
  configPath: string;
  stateDir: string;
  /** Seconds between readiness reports; Core's welcome decides when this is undefined. */
  heartbeatSeconds?: number;
  log: (line: string) => void;
  signal: AbortSignal;
  /** First retry delay of a failed rollout (default 5 s). */
  rolloutRetryMs?: number;
  /** Set per session: readiness is reported again after a generation switch. */
  onSwitched?: () => void;
}

type SessionEnd = 'removed' | 'lost' | 'stopped';

// Reconnect backoff: 1 s doubling to 30 s (the unit's own restart is the outer loop).
export const RECONNECT = { attempts: Infinity, baseDelayMs: 1000, maxDelayMs: 30_000 };
export const CLOSE_NODE_REMOVED = 4401;

export async function runNode(req: RunRequest): Promise<number> {
  if (typeof OAC_BUILT_FAULT === 'string' && OAC_BUILT_FAULT === 'exit-at-start') {
    process.stderr.write('oac-node: this test build exits as it starts (--fault exit-at-start)\n');
    return 1;
  }
  const stop = new AbortController();
  const release = await lockStateDirectory(req.stateDir, () => stop.abort());
  try {
    const identity = await loadIdentity(req.stateDir);
    if (identity === undefined || !isRegistered(identity)) {
      throw oacError('node_not_registered', { dir: req.stateDir });
    }
    redactor.add(identity.credential);
    // Issue #40: a copy of the node's host (a cloned disk or image) stops for good, before Core
    // is asked anything with the original's credential.
    const hostId = await readHostId(MACHINE_ID_FILE);
    refuseAnotherHost(identity, hostId);
    // A node registered before the host was recorded gets it now (this process holds the state
    // lock), not only at the next rerun: a copy made later is then recognised.
    if (identity.host_id === undefined && hostId !== null)
      await saveIdentity(req.stateDir, { ...identity, host_id: hostId });
    // TRUST-01: before any request, Core's origin trusts the recorded pin alone.
    pinOrigin(identity.core_url, identity.core_pin);
    // A provider file that cannot be read at start is a configuration error: say so and exit.
    const file = await loadProviderFile(req.configPath);
    if (new URL(file.core_url).origin !== identity.core_url) {
      const values = { file_core: new URL(file.core_url).origin, arg_core: identity.core_url };
      throw oacError('core_url_differs', values);
    }
    // microsandbox puts its sockets in runtime_home, private to the node (guide: created 0700).
    if (file.provider === 'microsandbox') await ensureDirectory(file.adapter.runtime_home, 0o700);
    await finishSwitch(req.stateDir, await loadServing(req.stateDir, identity));
    const signal = AbortSignal.any([req.signal, stop.signal]);
    return await connectLoop(req, identity, signal);
  } finally {
    await release().catch(() => undefined);
  }
}

async function connectLoop(
  req: RunRequest,
  identity: RegisteredIdentity,
  signal: AbortSignal,
): Promise<number> {
  const client = new CoreClient({
    dispatcher: sharedDispatcher(),
    coreUrl: identity.core_url,
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    signal,
  });
  const rollout = new Rollout({
    stateDir: req.stateDir,
    configPath: req.configPath,
    identity,
    client,
    log: req.log,
    onSwitched: () => req.onSwitched?.(),
    retryBaseMs: req.rolloutRetryMs,
  });
  try {
    return await sessions(req, identity, client, rollout, signal);
  } finally {
    await rollout.stop();
  }
}

async function sessions(
  req: RunRequest,
  identity: RegisteredIdentity,
  client: CoreClient,
  rollout: Rollout,
  signal: AbortSignal,
): Promise<number> {
  const outage = new OutageLog(req.log);
  for (let failures = 0; !signal.aborted;) {
    let connectedAt: number | undefined;
    const onConnected = () => (connectedAt = performance.now());
    const end = await session(req, identity, rollout, client, signal, onConnected, outage);
    // Only a connection that lasted resets the backoff and the outage's log: one that Core or
    // a proxy closes at once would otherwise reconnect (and log) every second (issue #27.1).
    if (connectedAt !== undefined && performance.now() - connectedAt >= STABLE_MS) {
      failures = 0;
      outage.over();
    }
    if (end === 'removed') {
      req.log(
        `${message('node_credential_refused')}: exiting ${EXIT.removed} so that the service is not restarted`,
      );
      return EXIT.removed;
    }
    if (end === 'stopped') break;
    failures += 1;
    const delay = backoffDelay(RECONNECT, failures);
    outage.retry(delay);
    await sleep(delay, signal);
  }
  return EXIT.ok;
}

async function session(
  req: RunRequest,
  identity: RegisteredIdentity,
  rollout: Rollout,
  client: CoreClient,
  signal: AbortSignal,
  onConnected: () => void,
  outage: OutageLog,
): Promise<SessionEnd> {
  let heartbeatSeconds = req.heartbeatSeconds;
  let socket: NodeSocket;
  try {
    socket = await openNodeSocket({
      dispatcher: sharedDispatcher(),
      coreOrigin: identity.core_url,
      nodeId: identity.node_id,
      credential: identity.credential,
      onMessage: (m) => {
        if (m.type === 'welcome') heartbeatSeconds ??= m.heartbeat_seconds;
        if (m.type === 'target') req.log(`Core's target generation is now ${m.generation}`);
        rollout.setTarget(m.type === 'welcome' ? m.target_generation : m.generation);
      },
      onUnknown: (type) => req.log(`Ignoring a message this version does not know: ${type}`),
      signal,
    });
  } catch (error) {
    if (signal.aborted) return 'stopped';
    return whyNotConnected(identity, client, error, signal, outage);
  }
  // Heard from the moment the socket opens: an abort that came while it opened (or during any
  // await below) closes it at once. Registered later, such an abort was lost and run heartbeated
  // on after SIGTERM.
  const onAbort = () => socket.close(1000, 'node stopping');
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    onConnected();
    outage.connected(`Connected to Core at ${identity.core_url} as node ${identity.node_id}`);
    const heartbeat = () => heartbeatSeconds;
    return await connected(req, identity, rollout, socket, signal, heartbeat, outage);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The open session: hello, readiness on every heartbeat, until the socket closes. */
async function connected(
  req: RunRequest,
  identity: RegisteredIdentity,
  rollout: Rollout,
  socket: NodeSocket,
  signal: AbortSignal,
  heartbeatSeconds: () => number | undefined,
  outage: OutageLog,
): Promise<SessionEnd> {
  const serving = await loadServing(req.stateDir, identity);
  socket.send({
    type: 'hello',
    software: `${PROGRAM}/${VERSION}`,
    managed: identity.managed,
    serving_generation: serving.generation,
    provider_file_digest: serving.provider_file_digest,
  });
  rollout.attach(socket);
  const reporter = new ReadinessReporter(req.configPath, req.stateDir, identity, socket, req.log);
  req.onSwitched = () => void reporter.report();
  await reporter.report();
  const timer = setInterval(() => void reporter.report(), (heartbeatSeconds() ?? 10) * 1000);
  const closed = await socket.closed.finally(() => clearInterval(timer));
  if (signal.aborted) return 'stopped';
  if (closed.code === CLOSE_NODE_REMOVED) return 'removed';
  outage.why(
    `Connection to Core closed (${closed.code}${closed.reason ? `: ${closed.reason}` : ''})`,
  );
  return 'lost';
}

/** The socket did not open: Core is unreachable, or it refuses the node (then 401 here too). */
async function whyNotConnected(
  identity: RegisteredIdentity,
  client: CoreClient,
  error: unknown,
  signal: AbortSignal,
  outage: OutageLog,
): Promise<SessionEnd> {
  try {
    await client.identity(identity.node_id, identity.credential);
    if (signal.aborted) return 'stopped';
    outage.why(
      `Core did not accept the connection (${(error as Error).message}); it still knows this node`,
    );
  } catch (identityError) {
    if (signal.aborted) return 'stopped'; // the request was ended by the stop: nothing to say
    if (identityError instanceof CoreError && identityError.code === 'node_credential_refused')
      return 'removed';
    outage.why(identityError instanceof Error ? identityError.message : String(identityError));
  }
  return 'lost';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
