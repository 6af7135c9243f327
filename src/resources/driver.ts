// The drivers' context and type for this installation's resource kinds (the shape itself is the
// core's, src/core/driver.ts). Install, rerun, dry-run, status and uninstall all go through
// them, so each resource kind is probed in exactly one place.
// The same role as src/core/driver.ts one layer up (a parallel pair,
// test/unit/file-names.test.ts).
import type { Journal } from '../../records/journal.ts';
import type { DigestIndex } from '../host/digest-index.ts';
import type { Host } from '../host/host.ts';
import type { Layout } from '../layout.ts';
import type { Emit } from '../core/events.ts';
import type { Kind, ResourceOf } from './resources.ts';
import type { Driver as CoreDriver } from '../core/driver.ts';

/** What every driver is given, whichever half runs it. Each half's context adds its own
 *  (src/installation/root-context.ts: root's, with the journal and the node half's inputs;
 *  src/node/drivers/node-context.ts: the node half's, with its request and release). */
export interface DriverContext {
  host: Host;
  layout: Layout;
  /** Root's record; the node half reconciles without one (root records what it made). */
  journal?: Journal;
  emit: Emit;
  /** Set when the operator interrupts (OPS-03): work stops at the next step boundary. */
  signal?: AbortSignal;
  /** The node half's digest cache (root's is its journal's). */
  digests?: DigestIndex;
}

/** A driver of one of this installation's kinds (the core's shape, src/core/driver.ts), given
 *  the context `C` of the half that runs it. */
export type Driver<K extends Kind, A, C extends DriverContext = DriverContext> = CoreDriver<
  ResourceOf<K>,
  A,
  C
>;

export { create, unchanged } from '../core/driver.ts';
