// What root reads of a node's state directory (install, rerun, status, uninstall): its identity
// and the generation it serves. The directory is the node account's to write, so every read
// takes only a regular file the account owns, never through a final link (SEC-02), and parses
// it with a schema; the credential is redacted.
import * as z from 'zod';
import { storedIdentity, type StoredIdentity } from '../agent/identity-store.ts';
import type { Host } from '../host/host.ts';
import { parseJsonWith } from '../json-file.ts';
import { NODE_UID, type Layout } from '../layout.ts';
import { redactor } from '../ui/redact.ts';

export async function readNodeIdentity(
  host: Host,
  layout: Layout,
): Promise<StoredIdentity | undefined> {
  const raw = await host.readOwnedBy(layout.identityFile, NODE_UID);
  const identity = raw === undefined ? undefined : parseJsonWith(raw, storedIdentity);
  if (identity !== undefined) redactor.add(identity.credential);
  return identity;
}

/** The generation the node serves now (src/agent/serving.ts); undefined while it serves its
 *  registration's. */
export async function readServingGeneration(
  host: Host,
  layout: Layout,
): Promise<number | undefined> {
  const raw = await host.readOwnedBy(layout.servingFile, NODE_UID);
  return raw === undefined ? undefined : parseJsonWith(raw, servingGeneration)?.generation;
}

const servingGeneration = z.object({ generation: z.number().int().positive() });

/** The Docker image the node's provider file names, when it matches an image reference's
 *  shape (SEC-09: the file is the node account's to write, and the name goes into a command
 *  the operator is told to run). */
export async function readProviderImage(host: Host, layout: Layout): Promise<string | undefined> {
  const raw = await host.readOwnedBy(layout.providerFile, NODE_UID);
  const file = raw === undefined ? undefined : parseJsonWith(raw, dockerProviderFile);
  return file?.adapter.image;
}

const dockerProviderFile = z.object({
  provider: z.literal('docker'),
  adapter: z.object({ image: z.string().regex(/^[a-z0-9][a-z0-9._/:@-]{0,254}$/) }),
});
