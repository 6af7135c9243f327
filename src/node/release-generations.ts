// Issue #6: the files of a generation Core no longer needs are released. A kept generation's
// provider file (`generations/<N>.json`) stays while Core still serves `?generation=N` to this
// node (its serving pin, the target, or one its work is pinned to); once Core answers 409
// `sandbox_specification_mismatch`, the microsandbox files that file names and the serving file
// does not are deleted, and so is the kept file. Docker images are never deleted (as uninstall
// never does: UNI-04); the image of an old release stays for the operator to remove.
import { join } from 'node:path';
import { listDirectory } from '../host/dir.ts';
import { removeFile } from '../host/files.ts';
import type { CoreClient } from '../net/core-client.ts';
import { CoreError } from '../net/core-errors.ts';
import type { RegisteredIdentity } from './identity-store.ts';
import { loadProviderFile } from './load-provider-file.ts';
import type { ProviderFile } from './provider-file.ts';
import { stateFile } from '../layout.ts';

function filesOf(file: ProviderFile): string[] {
  if (file.provider !== 'microsandbox') return [];
  const a = file.adapter;
  return [a.runtime_path, a.firmware_path, a.helper_path];
}

export async function releaseOldGenerations(
  stateDir: string,
  identity: RegisteredIdentity,
  client: CoreClient,
  log: (line: string) => void,
): Promise<void> {
  const dir = stateFile(stateDir, 'generations');
  const kept = (await listDirectory(dir)).filter((name) => /^\d+\.json$/.test(name));
  // Nothing kept, nothing to read: a manually registered node never switches (NODE-05), and its
  // provider file is its --config, not the state directory's provider.json.
  if (kept.length === 0) return;
  const serving = await loadProviderFile(stateFile(stateDir, 'provider'));
  const inUse = new Set(filesOf(serving));
  for (const name of kept) {
    const generation = Number(name.slice(0, -'.json'.length));
    if (generation === serving.generation) continue;
    if (await stillNeeded(client, identity, generation)) continue;
    const old = await loadProviderFile(join(dir, name)).catch(() => undefined);
    for (const path of old === undefined ? [] : filesOf(old))
      if (!inUse.has(path)) await removeFile(path);
    await removeFile(join(dir, name));
    log(`Released generation ${generation}: Core no longer needs it`);
  }
}

async function stillNeeded(
  client: CoreClient,
  identity: RegisteredIdentity,
  generation: number,
): Promise<boolean> {
  try {
    const auth = {
      kind: 'node' as const,
      nodeId: identity.node_id,
      credential: identity.credential,
    };
    await client.readConfiguration(auth, generation);
    return true;
  } catch (error) {
    // Only Core's own "not for you any more" releases; an outage keeps everything.
    return !(error instanceof CoreError && error.coreCode === 'sandbox_specification_mismatch');
  }
}
