// Issue #40: `install --same-host` records a new machine ID for the node this host holds, when
// the operator says it is the node's own host (its machine ID was changed on purpose). On a copy
// the original usually runs: Core then has the node connected, from the other host, and the
// confirmation is refused. The node on its own host has been stopped since its ID changed (its
// service exits 78), so Core has it disconnected. Core is asked with the node's credential, as
// status asks it, trusting the recorded pin alone; without Core's answer nothing is confirmed.
import type { Host } from '../src/host/host.ts';
import type { Layout } from '../src/layout.ts';
import { oacError } from '../src/messages.ts';
import { EXIT } from '../src/errors.ts';
import { readNodeIdentity } from '../src/installation/node-state.ts';
import { isRegistered } from '../src/node/identity-store.ts';
import { onAnotherHost } from '../src/node/host-id.ts';
import { pinOrigin } from '../src/net/core-pin.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';

export async function confirmSameHost(
  host: Host,
  names: Layout,
  hostId: string | null,
  proxyEnv: Record<string, string>,
): Promise<void> {
  const identity = await readNodeIdentity(host, names).catch(() => undefined);
  if (identity === undefined || !isRegistered(identity)) return;
  if (!onAnotherHost(identity.host_id, hostId)) return;
  pinOrigin(identity.core_url, identity.core_pin ?? null);
  const client = new CoreClient({
    coreUrl: identity.core_url,
    dispatcher: sharedDispatcher(proxyEnv),
    retry: { attempts: 2, baseDelayMs: 500, maxDelayMs: 1000 },
  });
  const node_id = identity.node_id;
  const view = await client.identity(node_id, identity.credential).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw oacError('same_host_unconfirmed', { node_id, reason }, { exitCode: EXIT.otherHost });
  });
  if (view.connected)
    throw oacError('same_host_connected', { node_id }, { exitCode: EXIT.otherHost });
}
