// Root's drivers (issue #23: typed per half): each of root's kinds is probed, diffed, applied and
// removed by its kind's driver (the registry: src/installation/kinds.ts), given root's context.
// The node half's are its own (src/node/drivers/index.ts).
import type { Driver } from '../resources/driver.ts';
import type { RootContext, RootKind, RootResource } from './root-context.ts';
import { kindOf } from './kinds.ts';

/** Root's driver of a resource's kind, typed loosely: callers pass it the resource it was
 *  chosen for (the node step's context is an install's: only install plans it). */
export type { RootKind, RootResource } from './root-context.ts';

export function driverOf(r: RootResource): Driver<RootKind, unknown, RootContext> {
  return kindOf(r).driver as unknown as Driver<RootKind, unknown, RootContext>;
}
