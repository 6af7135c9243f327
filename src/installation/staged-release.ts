// OFFLINE-01, issue #38: staging a bundle's release for the running node's rollout is a step of
// the plan, not a side path: an install from a bundle while the node serves an older generation
// than Core's plans this one resource. Its probe is the node half's own dry run of the staging
// (as oac-node, HOST-08), so the plan names what would be copied and any refusal of the node
// half before anything is written; applying it stops the service (its rollout would otherwise
// write the same files at the same time), has the node half copy the files, and starts the
// service again whatever happens, so a failed staging leaves the node serving as before.
import { z } from 'zod';
import { ACTION_PART, changes } from '../core/step.ts';
import { beforeForcedExit, startUnitDetached } from '../host/exit-hooks.ts';
import type { Host } from '../host/host.ts';
import { isActive, systemctlFailed } from '../host/systemd.ts';
import type { Driver } from '../resources/driver.ts';
import { defineKind } from '../resources/kind.ts';
import { stageRelease, stepsChanging } from './node-half.ts';
import type { InstallContext } from './root-context.ts';
import { STAGED_RELEASE_RESOURCE } from '../resources/resources.ts';

export const STAGED_RELEASE_ACTUAL = z.strictObject({
  /** The node half's plan of the staging (its dry run), step by step. */
  planned: z.array(ACTION_PART),
});
export type StagedReleaseActual = z.infer<typeof STAGED_RELEASE_ACTUAL>;

export const stagedReleaseDriver: Driver<'staged-release', StagedReleaseActual, InstallContext> = {
  probe: async (_r, ctx) => ({ planned: await stageRelease(ctx, true) }),
  exists: () => true,
  // The node half's steps are parts, a row each (as the node step's): its words never make one
  // unbounded line of root's.
  diff(r, { planned }) {
    const refusals = planned.flatMap((p) => p.action.refusals ?? []);
    if (refusals.length > 0) {
      const detail = `release ${r.release} for generation ${r.generation}: refused`;
      return { kind: 'refuse', detail, refusals, parts: planned };
    }
    const changing = planned.filter((p) => changes(p.action)).length;
    const copied = changing === 0 ? 'nothing to copy' : stepsChanging(changing);
    return {
      kind: 'update',
      detail: `stage release ${r.release} for generation ${r.generation} (${copied}), then restart ${r.unit}`,
      parts: planned,
    };
  },
  async apply(r, _action, _actual, ctx) {
    await stoppedMeanwhile(ctx.host, r.unit, () => stageRelease(ctx, false));
    return {
      outcome: 'updated',
      detail: `release ${r.release} staged for generation ${r.generation}; ${r.unit} restarted`,
    };
  },
  remove: () => Promise.resolve({ outcome: 'skipped', detail: 'a staged release' }),
};

export const stagedReleaseKind = defineKind({
  kind: 'staged-release',
  desired: STAGED_RELEASE_RESOURCE,
  recorded: false,
  driver: stagedReleaseDriver,
  actual: STAGED_RELEASE_ACTUAL,
  name: (r) => `release ${r.release} for generation ${r.generation}`,
});

/** `work` with the unit stopped if it ran, started again whatever happens (a failure, an
 *  interruption, a second Ctrl-C); systemctl runs in its own session, out of the terminal's
 *  reach, and a failure to start never hides why the work failed. */
export async function stoppedMeanwhile(host: Host, unit: string, work: () => Promise<unknown>) {
  const wasActive = await isActive(host, unit);
  const undo =
    wasActive && !host.prefixed ? beforeForcedExit(() => startUnitDetached(unit)) : () => true;
  try {
    if (wasActive) await systemctlAlone(host, ['stop', unit]);
    await work();
  } finally {
    if (wasActive) await systemctlAlone(host, ['start', unit]).catch(() => undefined);
    undo();
  }
}

/** systemctl in its own session: a Ctrl-C at the terminal does not kill it half way. */
async function systemctlAlone(host: Host, args: string[]): Promise<void> {
  const r = await host.run('systemctl', args, { newSession: true });
  if (r.exitCode !== 0) throw systemctlFailed(args, r);
}
