// The plan (issue #23, DECL-01): every resource probed (all at once, DECL-07) and diffed in
// order, before anything is written. Refusals are plan data (an action of kind `refuse`), so a
// run stops with all of them listed and the host untouched, and a dry run shows every one. The
// caller may judge each step once its driver has answered (the installation adds what its
// journal knows: ownership).
import { planReads, type CoreResource, type Driver } from './driver.ts';
import type { Action, Refusal } from './step.ts';
import type { Emit } from './events.ts';
import { step } from './run-step.ts';

export interface PlannedStep<R extends CoreResource = CoreResource> {
  resource: R;
  action: Action;
  /** What the probe found: the driver's own shape, passed back to its apply. */
  actual: unknown;
  /** Whether the resource was there at the probe (ownership comes from it, DECL-02). */
  exists: boolean;
}

export interface Plan<S extends PlannedStep = PlannedStep> {
  steps: S[];
  /** Every refusal of every step, in order. */
  refusals: Refusal[];
}

export interface Planner<R extends CoreResource, C, S extends PlannedStep<R>> {
  driverOf(r: R): Driver<R, unknown, C>;
  /** The step as the caller keeps it, from the driver's answer (the identity by default). */
  judge(step: PlannedStep<R>, ctx: C): Promise<S>;
}

export interface PlanStepsOptions {
  /** Stops the run before its next step; its reason (an Error) is what the run throws. */
  signal?: AbortSignal;
  /** Terraform's refresh-only plan (status): each resource diffed on its own (no step sees what
   *  the others would do, so a consequence such as a restart is not drift of its own). */
  refreshOnly?: boolean;
  /** Told of a probe that fails: its step starts and fails, naming the resource, before the
   *  error stops the plan (as a failing apply does). */
  emit?: Emit;
}

export async function planSteps<R extends CoreResource, C, S extends PlannedStep<R>>(
  resources: readonly R[],
  ctx: C,
  planner: Planner<R, C, S>,
  options: PlanStepsOptions = {},
): Promise<Plan<S>> {
  // Issue #41: every probe starts at once (they only read, and most wait on another process:
  // systemctl, Docker, the node half); each is then taken in the plan's order, and the first
  // that failed in that order is the plan's failure, as when they ran one by one.
  // The long ones first: the rest start while they are spawned.
  const probes: Array<Promise<Probed>> = [];
  const reads = planReads();
  const starts = (long: boolean) =>
    resources.forEach((r, i) => {
      const driver = planner.driverOf(r);
      if ((driver.probesLong === true) === long)
        probes[i] = settled(() => driver.probe(r, ctx, reads));
    });
  starts(true);
  starts(false);
  const decided = new Map<string, Action>();
  const steps: S[] = [];
  for (const [i, r] of resources.entries()) {
    options.signal?.throwIfAborted();
    const driver = planner.driverOf(r);
    const probed = await (probes[i] as Promise<Probed>);
    if (!probed.ok) {
      if (options.emit !== undefined) await failedStep(r, options.emit, probed.error);
      throw probed.error;
    }
    const actual = probed.actual;
    const exists = driver.exists(actual);
    const seen = options.refreshOnly ? new Map<string, Action>() : decided;
    const action = driver.diff(r, actual, seen);
    const step = await planner.judge({ resource: r, action, actual, exists }, ctx);
    decided.set(r.key, step.action);
    steps.push(step);
  }
  return { steps, refusals: steps.flatMap((s) => s.action.refusals ?? []) };
}

type Probed = { ok: true; actual: unknown } | { ok: false; error: unknown };

/** A probe's answer or its error, never a rejection left unheard while an earlier one is
 *  awaited. */
function settled(probe: () => Promise<unknown>): Promise<Probed> {
  return new Promise<unknown>((resolve) => resolve(probe())).then(
    (actual) => ({ ok: true, actual }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** A probe that threw, said as its step's failure (step-start, then step-failed), then raised. */
function failedStep(r: CoreResource, emit: Emit, error: unknown): Promise<never> {
  return step(r, emit, () => Promise.reject(error)) as Promise<never>;
}
