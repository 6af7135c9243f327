// The node half's drivers (issue #23: typed per half): the kinds `oac-node _prepare` and the
// rollout reconcile as the node account, each kind's driver (the registry: src/node/kind-registry.ts)
// given the node half's context.
import type { Driver } from '../../resources/driver.ts';
import { KINDS } from '../kind-registry.ts';
import type { NodeContext, NodeKind, NodeResource } from './node-context.ts';

/** The node half's driver of a resource's kind, typed loosely: callers pass it the resource it
 *  was chosen for. */
export type { NodeKind, NodeResource } from './node-context.ts';

export function nodeDriverOf(r: NodeResource): Driver<NodeKind, unknown, NodeContext> {
  return KINDS[r.kind].driver as unknown as Driver<NodeKind, unknown, NodeContext>;
}
