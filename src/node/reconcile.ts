// The node half's reconcile (HOST-08): the core's plan and apply (src/core/) over the node
// half's resources, as the node account, with no journal of its own (root records what it made,
// src/installation/reconcile.ts). `oac-node _prepare` and the rollout both run it.
// The same role as src/installation/reconcile.ts for root's half (a parallel pair,
// test/unit/file-names.test.ts).
import { applySteps, type ApplyOptions, type RunReport } from '../core/apply.ts';
import { planSteps } from '../core/plan.ts';
import { refusalError } from '../resources/refusal-error.ts';
import type { NodeContext } from './drivers/node-context.ts';
import { nodeDriverOf, type NodeResource } from './drivers/index.ts';
import { checkActual } from '../resources/kind.ts';
import { KINDS } from './kind-registry.ts';

export async function reconcileNode(
  resources: NodeResource[],
  ctx: NodeContext,
  options: ApplyOptions,
): Promise<RunReport> {
  const planner = {
    driverOf: nodeDriverOf,
    judge: async <S extends { resource: NodeResource; actual: unknown }>(step: S) => {
      checkActual(KINDS[step.resource.kind].schemas, step.resource.key, step.actual);
      return step;
    },
  };
  const planned = await planSteps(resources, ctx, planner, {
    signal: options.signal,
    emit: options.emit,
  });
  return applySteps(
    planned,
    {
      before: async () => 'apply',
      apply: async ({ resource: r, action, actual }) => {
        const apply = nodeDriverOf(r).apply;
        if (apply === undefined) throw new Error(`${r.key}: the node half has no way to make it`);
        return apply(r, action, actual as never, ctx);
      },
      after: async () => undefined,
      refused: refusalError,
    },
    options,
  );
}
