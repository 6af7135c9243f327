// The provider file the node runs with, written by the node half. Once the node registered, the
// file is what Core approved (NODE-05): a rerun that would write another one changes nothing
// and says why (RERUN-02). A damaged file (edited, truncated, not JSON) is not another one: when
// what this command writes is exactly what was approved, the rerun writes it back, as the
// guide's advice for artifacts_unavailable ("rerun the node's command") promises (NODE-04).
// The provider-file kind's module, named after its kind as every module here is; its format is
// src/node/provider-file.ts (a parallel pair, test/unit/file-names.test.ts).
import { z } from 'zod';
import { isRegistered, loadIdentity } from '../identity-store.ts';
import { readIfExists, writeFileAtomic } from '../../host/files.ts';
import { oacError } from '../../messages.ts';
import { refuse } from '../../core/step.ts';
import type { NodeContext } from './node-context.ts';
import type { Driver } from '../../resources/driver.ts';
import { parseProviderFile, providerFileDigest } from '../provider-file.ts';
import { loadServing } from '../serving.ts';
import { defineKind } from '../../resources/kind.ts';
import { PROVIDER_FILE_RESOURCE } from '../../resources/resources.ts';

export const PROVIDER_FILE_ACTUAL = z.strictObject({
  current: z.string().optional(),
  registered: z.boolean(),
  /** The digest approved for the generation the node serves (registered nodes only). */
  approved: z.string().optional(),
});
export type ProviderFileActual = z.infer<typeof PROVIDER_FILE_ACTUAL>;

export const providerFileDriver: Driver<'provider-file', ProviderFileActual, NodeContext> = {
  async probe(r, { host }) {
    const current = (await readIfExists(host.path(r.path)))?.toString('utf8');
    const identity = await loadIdentity(host.path(r.stateDir));
    if (identity === undefined || !isRegistered(identity)) return { current, registered: false };
    const serving = await loadServing(host.path(r.stateDir), identity);
    return { current, registered: true, approved: serving.provider_file_digest };
  },
  exists: (a) => a.current !== undefined,
  diff(r, { current, registered, approved }) {
    const repairs = registered && approved !== undefined && digestOf(r.content) === approved;
    if (repairs && current !== r.content)
      return { kind: 'replace', detail: `restore ${r.path} as approved`, why: 'damaged' };
    // Registered: only the approved file (NODE-05), even where the file is gone (a deleted
    // file is no licence to write other settings).
    if (registered && current !== r.content)
      return refuse(oacError('provider_file_changed', { path: r.path }));
    if (current === undefined) return { kind: 'create', detail: `write ${r.path}` };
    return current === r.content
      ? { kind: 'unchanged', detail: r.path }
      : { kind: 'replace', detail: `replace ${r.path}` };
  },
  async apply(r, _action, actual, { host }) {
    await writeFileAtomic(host.path(r.path), r.content, 0o600);
    return { outcome: actual.current === undefined ? 'created' : 'replaced', detail: r.path };
  },
  remove: (r) => Promise.resolve({ outcome: 'skipped', detail: `${r.path} (goes with the state)` }),
};

/** The approval digest of the text this command would write (NODE-05). */
function digestOf(text: string): string | undefined {
  try {
    return providerFileDigest(parseProviderFile(text, 'the provider file'));
  } catch {
    return undefined;
  }
}

/** The provider file as a kind (src/resources/kind.ts): unrecorded (it lies in the state). */
export const providerFileKind = defineKind({
  kind: 'provider-file',
  desired: PROVIDER_FILE_RESOURCE,
  recorded: false,
  driver: providerFileDriver,
  actual: PROVIDER_FILE_ACTUAL,
  perGeneration: () => false,
  name: (r) => r.path,
});
