// ENR-04: after starting the service, wait until Core reports the node connected and its
// provider ready, asking Core with the node's own credential; on timeout, say what was seen.
import { OacError } from '../src/errors.ts';
import { storedIdentity, type StoredIdentity } from '../src/agent/identity-store.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import { redactor } from '../src/ui/redact.ts';
import { parseJsonWith } from '../src/json-file.ts';
import * as z from 'zod';
import type { Host } from '../src/host/host.ts';
import { stateDir, unitName, type InstallContext } from './context.ts';

/** The node's identity as root reads it (install, rerun, uninstall); its credential redacted. */
export async function readNodeIdentity(
  host: Host,
  installationId: string,
): Promise<StoredIdentity | undefined> {
  // Root reads a file in a directory oac-node can write: never through a symlink (SEC-02).
  const raw = await host.readNoFollow(`${stateDir(installationId)}/identity.json`);
  const identity = raw === undefined ? undefined : parseJsonWith(raw, storedIdentity);
  if (identity !== undefined) redactor.add(identity.credential);
  return identity;
}

/** The generation the node serves now (src/agent/serving.ts), as root reads it; undefined
 *  while it serves its registration's. */
export async function readServingGeneration(
  host: Host,
  installationId: string,
): Promise<number | undefined> {
  const raw = await host.readNoFollow(`${stateDir(installationId)}/serving.json`);
  return raw === undefined ? undefined : parseJsonWith(raw, servingGeneration)?.generation;
}

const servingGeneration = z.object({ generation: z.number().int().positive() });

export async function waitUntilReady(
  ctx: InstallContext,
  timeoutSeconds: number,
): Promise<{ nodeId: string }> {
  const identity = await readNodeIdentity(ctx.host, ctx.options.installationId);
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
  const unit = unitName(ctx.options.installationId);
  throw new OacError(
    'not_ready_in_time',
    `The node did not become connected and ready within ${timeoutSeconds} s (${why})`,
    {
      hint: `Logs: sudo journalctl -u ${unit}`,
    },
  );
}
