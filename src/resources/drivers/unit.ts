// The service's unit file (HOST-03), root-owned 0644, compared by SHA-256 with what the
// installer writes. Removal leaves systemd holding nothing of it (DECL-04).
import { z } from 'zod';
import {
  canStartUnits,
  isMaskLink,
  mustSystemctl,
  systemctl,
  unitState,
  type UnitState,
} from '../../host/systemd.ts';
import type { PlanReads } from '../../core/driver.ts';
import { refuse } from '../../core/step.ts';
import { oacError } from '../../messages.ts';
import type { Driver } from '../driver.ts';
import { directoryKept } from './file.ts';
import { sha256 } from '../sha256.ts';
import { defineKind, textProp } from '../kind.ts';
import type { DriverContext } from '../driver.ts';
import type { UnitResource } from '../resources.ts';
import { UNIT_RESOURCE } from '../resources.ts';
import { unitRunsProgram } from '../unit-file.ts';

export const UNIT_ACTUAL = z.strictObject({
  exists: z.boolean(),
  sha256: z.string().optional(),
  text: z.string().optional(),
  /** systemd still runs an older copy (a run killed before its daemon-reload). */
  stale: z.boolean().optional(),
  /** Root's and not writable by others (0644), as the installer writes it. */
  rootOnly: z.boolean().optional(),
  /** A directory where the unit file belongs: neither written over nor removed (either would
   *  fail half way through a run), refused in the plan. */
  directory: z.boolean().optional(),
  /** REL-01: masked by the operator (`systemctl mask`: a link to /dev/null where the unit file
   *  goes). Never written over: that would undo the operator's "never start this". */
  masked: z.boolean().optional(),
  /** `systemctl mask --runtime`: the link in /run/systemd/system. systemd reads /etc/systemd/system
   *  first, so it masks only a unit with no file there: on a new host, writing the unit would
   *  quietly undo the operator's mask (refused); once the unit file is there, it masks nothing
   *  (measured on Debian 12's systemd: loaded from /etc, started), and is left alone. The mask's
   *  path when there is one. */
  maskedAtRuntime: z.string().optional(),
});
export type UnitActual = z.infer<typeof UNIT_ACTUAL>;

export const unitDriver: Driver<'unit', UnitActual> = {
  async probe(r, { host, layout }, reads) {
    const runtime = layout.runtimeUnitPath;
    const maskedAtRuntime = (await isMaskLink(host, runtime)) ? runtime : undefined;
    const raw = await host.readNoFollow(r.path).catch(() => undefined);
    if (raw === undefined) {
      const found = await host.lstat(r.path);
      const masked = await isMaskLink(host, r.path);
      const directory = found?.isDirectory() === true;
      return { exists: found !== undefined, directory, masked, maskedAtRuntime };
    }
    const stale = (await unitStateIn(reads, host, r.unit)).needsReload;
    const st = await host.lstat(r.path);
    const rootOnly = st !== undefined && st.uid === 0 && (st.mode & 0o7777) === 0o644;
    const text = raw.toString('utf8');
    return { exists: true, sha256: sha256(raw), text, stale, rootOnly, maskedAtRuntime };
  },
  exists: (a) => a.exists,
  diff(r, a) {
    if (a.directory === true) return refuse(oacError('not_a_file', { path: r.path }));
    if (a.masked === true) return refuse(oacError('unit_masked', { unit: r.unit, path: r.path }));
    if (a.maskedAtRuntime !== undefined && !a.exists) {
      const path = a.maskedAtRuntime;
      return refuse(oacError('unit_masked_runtime', { unit: r.unit, path }));
    }
    if (!a.exists)
      return { kind: 'create', detail: `write ${r.path}`, why: 'the unit file is gone' };
    if (r.sha256 !== undefined && a.sha256 !== r.sha256)
      return {
        kind: 'update',
        detail: `rewrite ${r.path} (it differs)`,
        why: 'edited by hand (put overrides in a drop-in, systemctl edit)',
      };
    if (a.rootOnly === false)
      return {
        kind: 'update',
        detail: `rewrite ${r.path} (owner or mode changed)`,
        why: 'owner or mode changed (root, 0644 expected)',
      };
    if (a.stale === true)
      return {
        kind: 'update',
        detail: `reload ${r.unit} (systemd runs an older copy)`,
        why: 'systemd has not loaded the unit file on disk (systemctl daemon-reload)',
      };
    return { kind: 'unchanged', detail: r.path };
  },
  async apply(r, action, _actual, { host }) {
    if (r.content === undefined) throw new Error(`${r.path}: nothing to write`);
    await host.writeFile(r.path, r.content, 0o644);
    if (await canStartUnits(host)) await mustSystemctl(host, ['daemon-reload']);
    return { outcome: action.kind === 'create' ? 'created' : 'updated', detail: r.path };
  },
  // The operator's mask is theirs: uninstall leaves it (and says so) rather than delete it.
  replacedBy: (_r, a) =>
    a.masked === true ? 'masked by the operator: a link to /dev/null, not the unit' : undefined,
  async remove(r, a, { host }) {
    if (a.directory === true) return directoryKept(r.path);
    await host.unlinkFile(r.path);
    if (await canStartUnits(host)) {
      await mustSystemctl(host, ['daemon-reload']);
      // A unit that failed (the node exits 78 once Core removed it) stays listed as failed,
      // and the system as degraded, until this (DECL-04). Not failed: nothing to reset.
      await systemctl(host, ['reset-failed', r.unit]);
    }
    return { outcome: 'removed', detail: r.path };
  },
};

/** The unit's state as systemd holds it, read once per plan: the unit's probe and the service's
 *  both ask (issue #41); outside a plan, read here. */
export function unitStateIn(
  reads: PlanReads | undefined,
  host: DriverContext['host'],
  unit: string,
): Promise<UnitState> {
  const read = () => unitState(host, unit);
  return reads === undefined ? read() : reads.once(`systemd-unit:${unit}`, read);
}

/** The unit file at `r.path` runs this installation's program: the proof, without a record,
 *  that the unit (and its service) are ours. */
export async function unitRunsThisProgram(r: UnitResource, ctx: DriverContext): Promise<boolean> {
  const found = await unitDriver.probe(r, ctx);
  return found.text !== undefined && unitRunsProgram(found.text, ctx.layout);
}

/** The unit file as a kind (src/resources/kind.ts). */
export const unitKind = defineKind({
  kind: 'unit',
  desired: UNIT_RESOURCE,
  recordedShape: z.object({ sha256: z.string().optional() }),
  recorded: true,
  driver: unitDriver,
  actual: UNIT_ACTUAL,
  name: (r) => r.path,
  recordedProps: (r): Record<string, string> =>
    r.sha256 === undefined ? {} : { sha256: r.sha256 },
  fromRecord: (r, props) => ({ ...r, sha256: textProp(props, 'sha256') }),
  provable: unitRunsThisProgram,
});
