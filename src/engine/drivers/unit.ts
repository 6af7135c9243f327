// The service's unit file (HOST-03), root-owned 0644, compared by SHA-256 with what the
// installer writes. Removal leaves systemd holding nothing of it (DECL-04).
import { canStartUnits, mustSystemctl, systemctl } from '../../host/systemd.ts';
import type { Driver } from '../driver.ts';
import { sha256 } from '../desired.ts';

export interface UnitActual {
  exists: boolean;
  sha256?: string;
  text?: string;
}

export const unitDriver: Driver<'unit', UnitActual> = {
  async probe(r, { host }) {
    const raw = await host.readNoFollow(r.path).catch(() => undefined);
    if (raw === undefined) return { exists: (await host.lstat(r.path)) !== undefined };
    return { exists: true, sha256: sha256(raw), text: raw.toString('utf8') };
  },
  exists: (a) => a.exists,
  diff(r, a) {
    if (!a.exists)
      return { kind: 'create', detail: `write ${r.path}`, why: 'the unit file is gone' };
    if (r.sha256 !== undefined && a.sha256 !== r.sha256)
      return {
        kind: 'update',
        detail: `rewrite ${r.path} (it differs)`,
        why: 'edited by hand (put overrides in a drop-in, systemctl edit)',
      };
    return { kind: 'unchanged', detail: r.path };
  },
  async apply(r, action, _actual, { host }) {
    if (r.content === undefined) throw new Error(`${r.path}: nothing to write`);
    await host.writeFile(r.path, r.content, 0o644);
    if (await canStartUnits(host)) await mustSystemctl(host, ['daemon-reload']);
    return { outcome: action.kind === 'create' ? 'created' : 'updated', detail: r.path };
  },
  async remove(r, _actual, { host }) {
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
