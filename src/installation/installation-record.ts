// UNI-02…05, issue #38: the end of an uninstall is a step of its plan, not a write after it. The
// installation's record (its journal, records/journal.ts) is the plan's last step: removed with
// the records directory once it is empty, after systemd forgets the unit (a run killed between
// removing the unit file and reloading systemd left it loaded); or, while the microsandbox store
// stays because Core has not confirmed the node gone (UNI-05), kept with the store, which it marks
// as kept unconfirmed, so that the rerun after the store's deletion finishes. A dry run shows it.
import { z } from 'zod';
import type { Host } from '../host/host.ts';
import { forgetUnit, unitListed } from '../host/systemd.ts';
import { JOURNAL_DIR, RUN_LOG_DIR } from '../layout.ts';
import type { Driver } from '../resources/driver.ts';
import { defineKind } from '../resources/kind.ts';
import { KEYS } from '../resources/keys.ts';
import { INSTALLATION_RECORD_RESOURCE } from '../resources/resources.ts';
import type { RootContext } from './root-context.ts';

export const INSTALLATION_RECORD_ACTUAL = z.strictObject({
  /** The record's file is on the host. */
  present: z.boolean(),
  /** The store's record is marked kept unconfirmed already (a rerun while the store stays). */
  marked: z.boolean(),
  /** Left by a run killed after the record went: the records directory, empty, or the unit
   *  still listed by systemd. */
  leftOver: z.boolean(),
});
export type InstallationRecordActual = z.infer<typeof INSTALLATION_RECORD_ACTUAL>;

export const installationRecordDriver: Driver<
  'installation-record',
  InstallationRecordActual,
  RootContext
> = {
  async probe(r, { host, journal, layout }) {
    const present = (await host.lstat(r.path)) !== undefined;
    const marked = journal.get(KEYS.store)?.props.kept_unconfirmed === true;
    const leftOver =
      !present &&
      ((await isEmptyDirectory(host, JOURNAL_DIR)) ||
        (await host.lstat(layout.lastRunLog)) !== undefined ||
        (await unitListed(host, r.unit)));
    return { present, marked, leftOver };
  },
  exists: (a) => a.present,
  diff(r, a) {
    const kept = `the record ${r.path} with the store until Core confirms the node gone`;
    if (r.keep && a.present && a.marked) return { kind: 'keep', detail: kept };
    if (r.keep && a.present) return { kind: 'update', detail: `keep ${kept}` };
    // The last run's events (installer/last-run.ts) go with the record they describe.
    if (a.present) return { kind: 'remove', detail: `remove the record ${r.path}` };
    if (a.leftOver)
      return { kind: 'remove', detail: `forget ${r.unit} and remove ${JOURNAL_DIR} if empty` };
    return { kind: 'skip', detail: `no record ${r.path}` };
  },
  async apply(r, action, _actual, { host, journal, layout }) {
    const store = journal.get(KEYS.store);
    if (r.keep && store !== undefined) {
      await journal.record(KEYS.store, {
        ...store,
        props: { ...store.props, kept_unconfirmed: true },
      });
      return { outcome: 'kept', detail: action.detail };
    }
    await forgetUnit(host, r.unit);
    // Not a directory there (someone else's file): nothing of ours to take away with the record.
    await host.unlinkFile(layout.lastRunLog).catch(notADirectory);
    await host.removeEmptyDirectory(RUN_LOG_DIR).catch(notADirectory);
    await host.unlinkFile(r.path);
    await host.removeEmptyDirectory(JOURNAL_DIR);
    return { outcome: 'removed', detail: action.detail.replace(/^remove /, '') };
  },
  remove: () => Promise.resolve({ outcome: 'skipped', detail: 'the record is its own step' }),
};

export const installationRecordKind = defineKind({
  kind: 'installation-record',
  desired: INSTALLATION_RECORD_RESOURCE,
  recorded: false,
  driver: installationRecordDriver,
  actual: INSTALLATION_RECORD_ACTUAL,
  name: (r) => `the record ${r.path}`,
});

function notADirectory(error: unknown): undefined {
  if ((error as { code?: string }).code === 'ENOTDIR') return undefined;
  throw error;
}

async function isEmptyDirectory(host: Host, path: string): Promise<boolean> {
  return (await host.listDirectory(path))?.length === 0;
}
