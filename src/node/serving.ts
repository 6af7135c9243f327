// The node's serving pin (issue #6): the generation whose configuration it serves, and the
// digest of that generation's provider file. A node serves what it registered with until it has
// prepared and verified a newer generation; then `serving.json` moves and `provider.json` is
// replaced by the new generation's file. The old file is kept in `generations/<N>.json` while
// Core may still need that generation. Absent `serving.json` means the registration's.
//
// The switch survives a kill at any point: the new file is staged as `provider.next.json`, then
// the pin is written, then the staged file is renamed into place; at start a staged file that
// matches the pin is finished (finishSwitch).
import { join } from 'node:path';
import * as z from 'zod';
import { parseJsonWith } from '../json-file.ts';
import {
  ensureDirectory,
  readIfExists,
  removeFile,
  renameFile,
  writeFileAtomic,
} from '../host/files.ts';
import type { RegisteredIdentity } from './identity-store.ts';
import { parseProviderFile, providerFileDigest } from './provider-file.ts';
import { stateFile } from '../layout.ts';

const servingSchema = z.object({
  generation: z.number().int().positive(),
  provider_file_digest: z.string().min(1),
});
export type Serving = z.infer<typeof servingSchema>;

const paths = (stateDir: string) => ({
  serving: stateFile(stateDir, 'serving'),
  current: stateFile(stateDir, 'provider'),
  staged: stateFile(stateDir, 'stagedProvider'),
  generations: stateFile(stateDir, 'generations'),
});

export async function loadServing(
  stateDir: string,
  identity: RegisteredIdentity,
): Promise<Serving> {
  const raw = await readIfExists(paths(stateDir).serving);
  const pinned = raw === undefined ? undefined : parseJsonWith(raw, servingSchema);
  return (
    pinned ?? {
      generation: identity.approved.generation,
      provider_file_digest: identity.approved.provider_file_digest,
    }
  );
}

/** Moves the pin to a prepared generation whose provider file is `text`. */
export async function switchServing(
  stateDir: string,
  from: Serving,
  text: string,
): Promise<Serving> {
  const p = paths(stateDir);
  const file = parseProviderFile(text, p.staged);
  const next = { generation: file.generation, provider_file_digest: providerFileDigest(file) };
  await ensureDirectory(p.generations, 0o700);
  const old = await readIfExists(p.current);
  if (old !== undefined)
    await writeFileAtomic(join(p.generations, `${from.generation}.json`), old, 0o600);
  await writeFileAtomic(p.staged, text, 0o600);
  await writeFileAtomic(p.serving, `${JSON.stringify(next)}\n`, 0o600);
  await renameFile(p.staged, p.current);
  return next;
}

/** At start: a switch killed after its pin was written is completed. */
export async function finishSwitch(stateDir: string, serving: Serving): Promise<void> {
  const p = paths(stateDir);
  const staged = await readIfExists(p.staged);
  if (staged === undefined) return;
  const file = parseProviderFile(staged.toString('utf8'), p.staged);
  if (providerFileDigest(file) === serving.provider_file_digest)
    await renameFile(p.staged, p.current);
  else await removeFile(p.staged); // staged but never pinned: the switch did not happen
}
