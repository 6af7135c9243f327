// The node's service: enabled at boot and running (HOST-03). Restarts are planned, not flagged
// (DECL-03): the journal keeps a digest of what the running service read when it started (its
// unit, env file, program and group), and the diff restarts it when that digest differs from
// the desired one or when a resource it reads changes in this run (a group re-added too: a new
// membership applies only to a new process). So a dry run shows the restart a real run does.
import { z } from 'zod';
import {
  canStartUnits,
  isEnabled,
  isMaskLink,
  mustSystemctl,
  systemctl,
} from '../../host/systemd.ts';
import type { Driver } from '../driver.ts';
import type { Host } from '../../host/host.ts';
import type { Layout } from '../../layout.ts';
import type { ServiceResource } from '../resources.ts';
import { SERVICE_RESOURCE } from '../resources.ts';
import { changes, type Action } from '../../core/step.ts';
import { defineKind, textProp } from '../kind.ts';
import { unitRunsThisProgram, unitStateIn } from './unit.ts';

/** Recorded in place of the digest just before a resource the service reads changes: a run
 *  killed before the restart still owes it (src/installation/reconcile.ts). */
export const RESTART_OWED = 'restart-owed';

export const SERVICE_ACTUAL = z.strictObject({
  enabled: z.boolean(),
  active: z.boolean(),
  canStart: z.boolean(),
  /** The digest recorded when the service last (re)started; undefined: never recorded. */
  startedWith: z.string().optional(),
  /** The unit file is a mask (a link to /dev/null): the service is the operator's to leave off,
   *  and the unit's own step says so (and refuses a rerun). */
  unitMasked: z.boolean().optional(),
  /** The unit masked (by the operator, after the install) and still enabled: the installer's
   *  `enable` link, which systemd's `disable` ignores for a masked unit, removed by uninstall. */
  maskedWantsLink: z.string().optional(),
});
export type ServiceActual = z.infer<typeof SERVICE_ACTUAL>;

/** The unit's mask, and then the link `systemctl enable` made for it if that still points at the
 *  unit's file. */
async function probeMask(
  host: Host,
  { unitPath, enableLink }: Layout,
): Promise<Pick<ServiceActual, 'unitMasked' | 'maskedWantsLink'>> {
  if (!(await isMaskLink(host, unitPath))) return { unitMasked: false };
  const ours =
    (await host.lstat(enableLink))?.isSymbolicLink() === true &&
    (await host.readLink(enableLink)) === unitPath;
  return { unitMasked: true, ...(ours ? { maskedWantsLink: enableLink } : {}) };
}

export const serviceDriver: Driver<'service', ServiceActual> = {
  async probe(r, { host, journal, layout }, reads) {
    const recorded = journal?.get(r.key)?.props.inputs;
    // Enabled by `is-enabled`, not by `systemctl show`: its UnitFileState is what PID 1 cached at
    // its last reload, so a wants-link removed by hand would still read as enabled; is-enabled
    // reads the unit files themselves (drift is found). Running from the `show` the unit's
    // probe makes too (one per plan); both processes at once.
    const [enabled, state, canStart, mask] = await Promise.all([
      isEnabled(host, r.unit),
      unitStateIn(reads, host, r.unit),
      canStartUnits(host),
      probeMask(host, layout),
    ]);
    return {
      enabled,
      active: state.active,
      canStart,
      startedWith: typeof recorded === 'string' ? recorded : undefined,
      ...mask,
    };
  },
  exists: (a) => a.enabled || a.active || a.maskedWantsLink !== undefined,
  diff(r, a, planned) {
    if (a.unitMasked === true)
      return {
        kind: 'skip',
        detail: `${r.unit}: its unit is masked`,
        why: `${r.unit} stays off: its unit is masked by the operator (the unit's line says how to unmask it)`,
      };
    if (!a.canStart)
      return a.enabled
        ? { kind: 'unchanged', detail: `${r.unit} enabled (not started: no running systemd here)` }
        : { kind: 'create', detail: `enable ${r.unit} (not started: no running systemd here)` };
    if (!a.active)
      return {
        kind: 'create',
        detail: `enable and start ${r.unit}`,
        why: `${r.unit} is ${a.enabled ? 'not running' : 'not enabled'}`,
      };
    const restart = restartReason(r, a, planned);
    if (restart !== undefined) return { kind: 'update', detail: `restart ${r.unit} (${restart})` };
    if (!a.enabled)
      return { kind: 'create', detail: `enable ${r.unit}`, why: `${r.unit} is not enabled` };
    return { kind: 'unchanged', detail: `${r.unit} enabled and running` };
  },
  async apply(r, action, a, { host }) {
    if (!a.canStart) {
      await mustSystemctl(host, ['enable', r.unit]);
      return { outcome: 'created', detail: `${r.unit} enabled` };
    }
    if (action.kind === 'update') {
      // Enabled too: an active service someone disabled is restarted and enabled again.
      await mustSystemctl(host, ['enable', r.unit]);
      await mustSystemctl(host, ['restart', r.unit]);
      return { outcome: 'updated', detail: `${r.unit} restarted` };
    }
    await mustSystemctl(host, ['enable', '--now', r.unit]);
    return { outcome: 'created', detail: `${r.unit} enabled and started` };
  },
  async remove(r, a, { host }) {
    // Disabling an already stopped or disabled unit is fine; a missing manager (--root) too.
    await systemctl(host, ['disable', ...(a.canStart ? ['--now'] : []), r.unit]);
    if (a.canStart) await systemctl(host, ['reset-failed', r.unit]);
    if (a.maskedWantsLink === undefined)
      return { outcome: 'removed', detail: `${r.unit} stopped and disabled` };
    await host.unlinkFile(a.maskedWantsLink);
    return { outcome: 'removed', detail: `${r.unit} stopped, its enable link removed (masked)` };
  },
};

/** Why the running service must restart, or undefined. */
function restartReason(
  r: ServiceResource,
  a: ServiceActual,
  planned: ReadonlyMap<string, Action>,
): string | undefined {
  const changed = r.reads.filter((key) => {
    const action = planned.get(key);
    return action !== undefined && changes(action);
  });
  if (changed.length > 0) return `${changed.join(', ')} changed`;
  if (a.startedWith === RESTART_OWED) return 'an earlier run changed what it reads';
  if (r.inputs !== undefined && a.startedWith !== undefined && a.startedWith !== r.inputs)
    return "it runs with an older unit, env file, program, group or pin of Core's key";
  return undefined;
}

/** The service as a kind (src/resources/kind.ts): ours without a record when its unit is. */
export const serviceKind = defineKind({
  kind: 'service',
  desired: SERVICE_RESOURCE,
  recordedShape: z.object({ inputs: z.string().optional() }),
  recorded: true,
  driver: serviceDriver,
  actual: SERVICE_ACTUAL,
  name: (r) => r.unit,
  removal: (r) => `stop and disable ${r.unit}`,
  reads: (r) => r.reads,
  missingAdvice: (r) => `see sudo journalctl -u ${r.unit}`,
  recordedProps: (r): Record<string, string> =>
    r.inputs === undefined ? {} : { inputs: r.inputs },
  fromRecord: (r, props) => ({ ...r, inputs: textProp(props, 'inputs') }),
  // The digest of what it read differs with every new env file key: plans compare the inputs.
  comparable(r) {
    const { inputs: _inputs, ...rest } = r;
    return rest;
  },
  provable: (r, ctx) =>
    unitRunsThisProgram(
      {
        kind: 'unit',
        key: r.key,
        title: r.title,
        phase: r.phase,
        unit: r.unit,
        path: ctx.layout.unitPath,
      },
      ctx,
    ),
});
