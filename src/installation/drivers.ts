// Root's drivers (issue #23: typed per half): the one place each of root's kinds is probed,
// diffed, applied and removed, each given root's context. The node half's are its own
// (src/node/drivers/index.ts).
import type { Driver } from '../resources/driver.ts';
import { accountDriver } from '../resources/drivers/account.ts';
import { directoryDriver } from '../resources/drivers/directory.ts';
import { fileDriver } from '../resources/drivers/file.ts';
import { membershipDriver } from '../resources/drivers/membership.ts';
import { networkDriver } from '../resources/drivers/network.ts';
import { serviceDriver } from '../resources/drivers/service.ts';
import { unitDriver } from '../resources/drivers/unit.ts';
import type { RootContext, RootKind, RootResource } from './context.ts';
import { nodeHalfDriver } from './node-half.ts';

const ROOT_DRIVERS: { [K in RootKind]: Driver<K, never, RootContext> } = {
  account: accountDriver as Driver<'account', never, RootContext>,
  membership: membershipDriver as Driver<'membership', never, RootContext>,
  directory: directoryDriver as Driver<'directory', never, RootContext>,
  file: fileDriver as Driver<'file', never, RootContext>,
  unit: unitDriver as Driver<'unit', never, RootContext>,
  service: serviceDriver as Driver<'service', never, RootContext>,
  network: networkDriver as Driver<'network', never, RootContext>,
  // Its context is an install's (the node half's inputs): only install plans the node step.
  node: nodeHalfDriver as unknown as Driver<'node', never, RootContext>,
};

/** Root's driver of a resource's kind, typed loosely: callers pass it the resource it was
 *  chosen for. */
export type { RootKind, RootResource } from './context.ts';

export function driverOf(r: RootResource): Driver<RootKind, unknown, RootContext> {
  return ROOT_DRIVERS[r.kind] as unknown as Driver<RootKind, unknown, RootContext>;
}
