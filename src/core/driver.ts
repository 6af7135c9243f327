// The reconcile core's driver shape (docs/design.md "Shape"): one per resource kind, `probe` reads the
// host, a pure `diff` turns desired and actual into an action, `apply` makes the host match,
// `remove` takes the resource away. Generic over the resource, what the probe finds and the
// context the caller hands every call: the core knows no kind, no host and no journal.
// The same role as src/resources/driver.ts one layer down: this is the generic shape, that the
// domain's contexts and typing of it (a parallel pair, test/unit/file-names.test.ts).
import type { Action, Refusal, StepResult } from './step.ts';

/** What the core needs of a resource: its kind (which driver), a key unique in a plan, and the
 *  words a screen shows for it. */
export interface CoreResource {
  readonly kind: string;
  readonly key: string;
  readonly title: string;
  /** The group a terminal shows it under. */
  readonly phase?: string;
  /** A settling step (an upgrade's roll back): applied after a step before it failed too, and
   *  given that failure; what it throws is then the run's error. Never after an interruption,
   *  which is the operator's. */
  readonly settles?: boolean;
}

/** What the probes of one plan read in common (issue #41: each thing asked once): the first
 *  probe's read of a key is every other probe's answer for it, within that plan only (a unit's
 *  properties, which the unit's probe and the service's both need, are one `systemctl show`). */
export interface PlanReads {
  once<T>(key: string, read: () => Promise<T>): Promise<T>;
}

/** A plan's own reads, empty: made by each plan (src/core/plan.ts), never kept past it. */
export function planReads(): PlanReads {
  const started = new Map<string, Promise<unknown>>();
  return {
    once<T>(key: string, read: () => Promise<T>): Promise<T> {
      let pending = started.get(key) as Promise<T> | undefined;
      if (pending === undefined) {
        pending = read();
        started.set(key, pending);
      }
      return pending;
    },
  };
}

export interface Driver<R, A, C> {
  /** `reads`: the plan's reads in common (a probe called outside a plan reads on its own). */
  probe(r: R, ctx: C, reads?: PlanReads): Promise<A>;
  /** Its probe runs another process for a while (the node half's dry run): a plan starts it
   *  before the others, which then run beside it (issue #41). */
  readonly probesLong?: boolean;
  /** Whether the resource is there (ownership: an intended resource that exists is ours). */
  exists(actual: A): boolean;
  /** Pure: no host, no clock. `planned` holds the actions decided so far in this run, by key. */
  diff(r: R, actual: A, planned: ReadonlyMap<string, Action>): Action;
  /** Undefined: another step makes it (the node half's resources, HOST-08). `failure`: the
   *  error of a step before it, given to a settling step only. */
  apply?(r: R, action: Action, actual: A, ctx: C, failure?: unknown): Promise<StepResult>;
  remove(r: R, actual: A, ctx: C): Promise<StepResult>;
  /** Pure: why a resource that is there is not the installer's to remove any more (someone
   *  replaced it), or undefined. An uninstall's plan keeps it, said so. */
  replacedBy?(r: R, actual: A): string | undefined;
  /** Pure: why the probe could not learn the resource's state (the service it asks did not
   *  answer), or undefined. A removal of a recorded resource whose state is unknown is refused
   *  in the plan, before the first write: no run removes part of an installation and then
   *  stops on what it could have known when it planned (issue #38). */
  unknown?(r: R, actual: A): Refusal | undefined;
}

export const unchanged = (detail: string): Action => ({ kind: 'unchanged', detail });
export const create = (detail: string): Action => ({ kind: 'create', detail });
