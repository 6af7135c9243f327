// The node half's inputs of an installed node (issue #38): what `status` plans the node step with,
// so that the node half's plan is a step of status's own refresh-only plan (src/installation/
// node-half.ts), as it is of an install's. Taken from what the host records (the journal's
// inputs, the node's identity and proxy settings) and from Core's configuration of the
// generation the node serves, read with the node's own credential; no token, nothing written.
import type { Journal } from '../../records/journal.ts';
import { proxyEnvForNode } from '../../records/proxy-settings.ts';
import { readGroups } from '../host/accounts.ts';
import type { Host } from '../host/host.ts';
import type { Layout } from '../layout.ts';
import { CoreClient } from '../net/core-client.ts';
import { pinOrigin } from '../net/core-pin.ts';
import { sharedDispatcher } from '../net/dispatcher.ts';
import { isRegistered } from '../node/identity-store.ts';
import { hostIdOn } from '../node/host-id.ts';
import { readNodeIdentityFor, readServingGeneration } from './node-state.ts';
import type { NodeHalfInputs } from './root-context.ts';

/** The installed node's inputs, or the reason they cannot be had (a string: the node is not
 *  registered, its provider group is gone, Core does not answer …). */
export async function installedNodeInputs(
  host: Host,
  names: Layout,
  journal: Journal,
): Promise<NodeHalfInputs | string> {
  try {
    const identity = await readNodeIdentityFor(host, names, journal.snapshot.core_url);
    if (identity === undefined || !isRegistered(identity)) return 'the node is not registered';
    const group = journal.inputs.group;
    const gid = (await readGroups(host)).find((g) => g.name === group)?.gid;
    if (group === null || gid === undefined)
      return `the provider group ${group ?? '(none recorded)'} is not on this host`;
    // Issue #41: the node's other files at once.
    const [proxyEnv, serving, hostId] = await Promise.all([
      proxyEnvForNode(host, names),
      readServingGeneration(host, names),
      hostIdOn(host),
    ]);
    // TRUST-01: Core is asked as the node asks it, trusting its recorded pin alone.
    pinOrigin(identity.core_url, identity.core_pin ?? null);
    const generation = serving ?? identity.approved.generation;
    const client = new CoreClient({
      coreUrl: identity.core_url,
      dispatcher: sharedDispatcher(proxyEnv),
      retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    });
    const auth = {
      kind: 'node',
      nodeId: identity.node_id,
      credential: identity.credential,
    } as const;
    const checkpointRoot = journal.inputs.checkpoint_root;
    return {
      coreUrl: identity.core_url,
      corePin: identity.core_pin ?? null,
      name: identity.name,
      token: undefined,
      configuration: await client.readConfiguration(auth, generation),
      providerGroup: { name: group, gid },
      ...(checkpointRoot === null ? {} : { checkpointRoot }),
      proxyEnv,
      hostId,
    };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
