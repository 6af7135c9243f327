// ENR-04: after starting the service, wait until Core reports the node connected and its
// provider ready, asking Core with the node's own credential; on timeout, say what was seen.
import { OacError } from '../src/errors.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import { readNodeIdentity } from '../src/engine/node-state.ts';
import type { InstallContext } from './context.ts';

export async function waitUntilReady(
  ctx: InstallContext,
  timeoutSeconds: number,
): Promise<{ nodeId: string }> {
  const identity = await readNodeIdentity(ctx.host, ctx.layout);
  if (identity === undefined)
    throw new OacError('not_registered', 'The node has no identity after preparation');
  const client = new CoreClient({
    dispatcher: sharedDispatcher(ctx.options.proxyEnv),
    coreUrl: identity.core_url,
    retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  const deadline = Date.now() + timeoutSeconds * 1000;
  let why = 'Core has not seen the node connect';
  while (Date.now() < deadline) {
    try {
      const view = await client.identity(identity.node_id, identity.credential);
      if (view.connected && view.provider_ready) return { nodeId: identity.node_id };
      why = view.connected
        ? 'connected, but its provider is not ready'
        : 'Core has not seen the node connect';
    } catch (error) {
      why = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const unit = ctx.layout.unitName;
  throw new OacError(
    'not_ready_in_time',
    `The node did not become connected and ready within ${timeoutSeconds} s (${why})`,
    {
      hint: `Logs: sudo journalctl -u ${unit}`,
    },
  );
}
