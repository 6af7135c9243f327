// The node half's drivers (issue #23: typed per half): the kinds `oac-node _prepare` and the
// rollout reconcile as the node account, each given the node half's context.
import type { Driver } from '../../resources/driver.ts';
import { directoryDriver } from '../../resources/drivers/directory.ts';
import { networkDriver } from '../../resources/drivers/network.ts';
import type { NodeContext, NodeKind, NodeResource } from './context.ts';
import { dockerImageDriver } from './docker-image.ts';
import { nodeFileDriver } from './node-file.ts';
import { providerFileDriver } from './provider-file.ts';
import { registrationDriver } from './registration.ts';
import { storeImageDriver } from './store-image.ts';

const NODE_DRIVERS: { [K in NodeKind]: Driver<K, never, NodeContext> } = {
  directory: directoryDriver as Driver<'directory', never, NodeContext>,
  network: networkDriver as Driver<'network', never, NodeContext>,
  'docker-image': dockerImageDriver as Driver<'docker-image', never, NodeContext>,
  'node-file': nodeFileDriver as Driver<'node-file', never, NodeContext>,
  'store-image': storeImageDriver as Driver<'store-image', never, NodeContext>,
  'provider-file': providerFileDriver as Driver<'provider-file', never, NodeContext>,
  registration: registrationDriver as Driver<'registration', never, NodeContext>,
};

/** The node half's driver of a resource's kind, typed loosely: callers pass it the resource it
 *  was chosen for. */
export type { NodeKind, NodeResource } from './context.ts';

export function nodeDriverOf(r: NodeResource): Driver<NodeKind, unknown, NodeContext> {
  return NODE_DRIVERS[r.kind] as unknown as Driver<NodeKind, unknown, NodeContext>;
}
