// The provider file the node runs with, written by the node half. Once the node registered, the
// file is what Core approved (NODE-05): a rerun that would write another one changes nothing
// and says why (RERUN-02).
import { isRegistered, loadIdentity } from '../../agent/identity-store.ts';
import { OacError } from '../../errors.ts';
import { readIfExists, writeFileAtomic } from '../../host/files.ts';
import { hint, message } from '../../messages.ts';
import type { Driver } from '../driver.ts';

export interface ProviderFileActual {
  current: string | undefined;
  registered: boolean;
}

export const providerFileDriver: Driver<'provider-file', ProviderFileActual> = {
  async probe(r, { host }) {
    const current = (await readIfExists(host.path(r.path)))?.toString('utf8');
    const identity = await loadIdentity(host.path(r.stateDir));
    return { current, registered: identity !== undefined && isRegistered(identity) };
  },
  exists: (a) => a.current !== undefined,
  diff(r, { current, registered }) {
    if (registered && current !== undefined && current !== r.content)
      throw new OacError(
        'provider_file_changed',
        message('provider_file_changed', { path: r.path }),
        {
          hint: hint('provider_file_changed'),
        },
      );
    if (current === undefined) return { kind: 'create', detail: `write ${r.path}` };
    return current === r.content
      ? { kind: 'unchanged', detail: r.path }
      : { kind: 'replace', detail: `replace ${r.path}` };
  },
  async apply(r, action, _actual, { host }) {
    await writeFileAtomic(host.path(r.path), r.content, 0o600);
    return { outcome: action.kind === 'create' ? 'created' : 'replaced', detail: r.path };
  },
  remove: (r) => Promise.resolve({ outcome: 'skipped', detail: `${r.path} (goes with the state)` }),
};
