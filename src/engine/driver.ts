// One driver per resource kind (DESIGN.md "Shape"): `probe` reads the host, a pure `diff` turns
// desired and actual into an action, `apply` makes the host match, `remove` takes the resource
// away. Install, rerun, dry-run, status and uninstall all go through these, so each resource
// kind is probed in exactly one place.
import type { Journal } from '../../records/journal.ts';
import type { DigestIndex } from '../host/digest-index.ts';
import type { Host } from '../host/host.ts';
import type { Layout } from '../layout.ts';
import type { Emit } from './events.ts';
import type { Bundle } from '../bundle/bundle.ts';
import type { NodeHalfInputs } from './drivers/node-half.ts';
import type { Kind, ResourceOf } from './resources.ts';
import type { PrepareRequest } from '../agent/prepare-request.ts';
import type { ReleaseManifest } from '../net/release-manifest.ts';
import type { Action, StepResult } from './step.ts';

export interface DriverContext {
  host: Host;
  layout: Layout;
  /** Root's record; the node half reconciles without one (root records what it made). */
  journal?: Journal;
  emit: Emit;
  /** What the node half needs to run (root's install only). */
  node?: NodeHalfInputs;
  /** Set when the operator interrupts (OPS-03): work stops at the next step boundary. */
  signal?: AbortSignal;
  /** The node half's own run: its request and the release manifest (downloads). */
  prepare?: { req: PrepareRequest; manifest: ReleaseManifest; bundle?: Bundle };
  /** The node half's digest cache (root's is its journal's). */
  digests?: DigestIndex;
}

export interface Driver<K extends Kind, A> {
  probe(r: ResourceOf<K>, ctx: DriverContext): Promise<A>;
  /** Whether the resource is there (ownership: an intended resource that exists is ours). */
  exists(actual: A): boolean;
  /** Pure: no host, no clock. `planned` holds the actions decided so far in this run, by key. */
  diff(r: ResourceOf<K>, actual: A, planned: ReadonlyMap<string, Action>): Action;
  /** Undefined: the node half makes it (HOST-08); root only records what it finds after. */
  apply?(r: ResourceOf<K>, action: Action, actual: A, ctx: DriverContext): Promise<StepResult>;
  remove(r: ResourceOf<K>, actual: A, ctx: DriverContext): Promise<StepResult>;
}

export const unchanged = (detail: string): Action => ({ kind: 'unchanged', detail });
export const create = (detail: string): Action => ({ kind: 'create', detail });
