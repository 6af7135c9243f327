// ENR-04: after starting the service, wait until Core reports the node connected and its
// provider ready, asking Core with the node's own credential. While it waits, the screen shows
// the time waited and what Core last said (OPS-01); on timeout, the hint names what usually
// keeps a registered node from connecting: Core's public URL and the WebSocket through a
// reverse proxy (the earlier guide's troubleshooting). An interruption stops the wait (OPS-03).
import type { OacError } from '../src/errors.ts';
import { oacError } from '../src/messages.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import type { StoredIdentity } from '../src/node/identity-store.ts';
import { readNodeIdentityFor, readServingGeneration } from '../src/installation/node-state.ts';
import type { InstallContext } from './install-context.ts';
import { unitRun } from '../src/host/systemd.ts';

/** Core is asked every 100 ms for the first two seconds, then twice as long each time up to a
 *  second: a node that connects within a second of its start (the usual case) is seen within
 *  100 ms of it (issue #41: 150 ms doubling saw it about 0.2 s late on average), and a slow one
 *  costs Core no more than a question a second. */
const FIRST_POLL_MS = 100;
const STEADY_POLL_FOR_MS = 2000;
const MAX_POLL_MS = 1000;
const NOT_CONNECTED = 'Core has not seen the node connect yet';
/** UPG-02: how long an upgraded node must stay ready, its service run unchanged, to count. */
const UPGRADE_READY_HOLD_MS = 1000;

export async function waitUntilReady(
  ctx: InstallContext,
  timeoutSeconds: number,
  signal?: AbortSignal,
  /** OFFLINE-01: also until the node serves this generation (a release staged from a bundle). */
  generation?: number,
  /** UPG-02: the service run this wait is for (an upgrade's): if it stops, the wait ends. */
  watch?: { unit: string; invocation: string },
): Promise<{ nodeId: string }> {
  // The identity is the node account's file: it must name the Core this command installs for.
  const identity = await readNodeIdentityFor(ctx.host, ctx.layout, ctx.options.coreUrl);
  if (identity === undefined) throw oacError('not_registered');
  const client = new CoreClient({
    dispatcher: sharedDispatcher(ctx.options.proxyEnv),
    coreUrl: identity.core_url,
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  const started = Date.now();
  let said = NOT_CONNECTED;
  // The public URL or WebSocket case: Core answers, and has never seen the node connect.
  let everConnected = false;
  let answered = false;
  let pollMs = FIRST_POLL_MS;
  let readySince: number | undefined;
  let [lastSaid, lastElapsed] = ['', -1];
  while (Date.now() - started < timeoutSeconds * 1000) {
    signal?.throwIfAborted();
    if (watch !== undefined) await stopIfServiceStopped(ctx, watch);
    try {
      const view = await client.identity(identity.node_id, identity.credential);
      const serving =
        generation === undefined ? undefined : await readServingGeneration(ctx.host, ctx.layout);
      if (view.connected && view.provider_ready && serving === generation) {
        // After an upgrade's restart, Core may still show the old program's session for a
        // moment: ready is believed once it holds for a second of the new run (watched above).
        if (watch === undefined) return { nodeId: identity.node_id };
        readySince ??= Date.now();
        if (Date.now() - readySince >= UPGRADE_READY_HOLD_MS) return { nodeId: identity.node_id };
      } else readySince = undefined;
      answered = true;
      everConnected ||= view.connected;
      said = view.connected ? 'connected, but its provider is not ready' : NOT_CONNECTED;
      if (view.connected && view.provider_ready) said = `preparing generation ${generation ?? ''}`;
    } catch (error) {
      // Core could not be asked: what went wrong is the news, not the WebSocket.
      answered = false;
      said = error instanceof Error ? error.message : String(error);
    }
    const elapsed = Math.round((Date.now() - started) / 1000);
    // Asked every 100 ms at first: told once a second, or when what Core says changes.
    if (said !== lastSaid || elapsed !== lastElapsed)
      ctx.emit({ type: 'waiting', step: 'ready', elapsed, said });
    [lastSaid, lastElapsed] = [said, elapsed];
    await sleep(pollMs, signal);
    if (Date.now() - started >= STEADY_POLL_FOR_MS) pollMs = Math.min(pollMs * 2, MAX_POLL_MS);
  }
  const neverConnected = answered && !everConnected;
  throw notReady(ctx, identity, timeoutSeconds, neverConnected ? undefined : said);
}

/** A new program that exits at start (systemd restarts it, or gives up) is said at once. */
async function stopIfServiceStopped(
  ctx: InstallContext,
  watch: { unit: string; invocation: string },
): Promise<void> {
  const run = await unitRun(ctx.host, watch.unit);
  if (run === undefined) return;
  if (run.active === 'active' && run.invocation === watch.invocation) return;
  const state = `${run.active}/${run.sub}`;
  throw oacError('service_exited', { unit: watch.unit, state, status: run.status || '?' });
}

/** Never connected: where to look (Core's URL, the WebSocket); otherwise what Core last said. */
function notReady(
  ctx: InstallContext,
  identity: StoredIdentity,
  seconds: number,
  said: string | undefined,
): OacError {
  const unit = ctx.layout.unitName;
  if (said !== undefined) return oacError('not_ready_in_time', { seconds, why: said, unit });
  const websocket = new URL('/api/v1/sandbox-node/connect', identity.core_url);
  websocket.protocol = websocket.protocol === 'https:' ? 'wss:' : 'ws:';
  return oacError('never_connected', {
    seconds,
    unit,
    core_url: identity.core_url,
    websocket: websocket.href,
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
