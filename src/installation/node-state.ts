// What root reads of a node's state directory (install, rerun, status, uninstall): its identity
// and the generation it serves. The directory is the node account's to write, so every read
// takes only a regular file the account owns, never through a final link (SEC-02), and parses
// it with a schema; the credential is redacted.
import * as z from 'zod';
import { storedIdentity, type StoredIdentity } from '../node/identity-store.ts';
import type { Host } from '../host/host.ts';
import { checkJsonWith, parseJsonWith } from '../json-file.ts';
import { oacError } from '../messages.ts';
import { NODE_UID, type Layout } from '../layout.ts';
import { redactor } from '../redact.ts';
import { refuseAnotherHost } from '../node/host-id.ts';

export async function readNodeIdentity(
  host: Host,
  layout: Layout,
): Promise<StoredIdentity | undefined> {
  const raw = await host.readOwnedBy(layout.identityFile, NODE_UID);
  if (raw === undefined) return undefined;
  // SEC-04: a file that is there but does not parse is said in one line, not taken for "no
  // node" (which would let uninstall skip asking Core, and install enroll a second node).
  const checked = checkJsonWith(raw, storedIdentity);
  if ('problem' in checked) {
    const path = host.path(layout.identityFile);
    throw oacError('node_file_damaged', { path, ...checked });
  }
  redactor.add(checked.data.credential);
  return checked.data;
}

/** Issue #40: the node this host records was registered on another host (src/node/host-id.ts):
 *  install and uninstall stop before anything else (their lock's file included), with the fix.
 *  An identity that cannot be read is for the command's own checks to report. */
export async function refuseCopiedNode(
  host: Host,
  layout: Layout,
  hostId: string | null,
): Promise<void> {
  const identity = await readNodeIdentity(host, layout).catch(() => undefined);
  if (identity !== undefined) refuseAnotherHost(identity, hostId);
}

/** The node's identity, as readNodeIdentity, checked against root's own record of the Core this
 *  installation was made for (its journal's `core_url`): the identity is the node account's
 *  file, so a node account that rewrote it must not steer where root sends the node's
 *  credential, nor whose answer status shows or uninstall takes for Core's. */
export async function readNodeIdentityFor(
  host: Host,
  layout: Layout,
  recordedCoreUrl: string,
): Promise<StoredIdentity | undefined> {
  const identity = await readNodeIdentity(host, layout);
  if (identity === undefined || sameOrigin(identity.core_url, recordedCoreUrl)) return identity;
  throw oacError('identity_core_differs', {
    path: host.path(layout.identityFile),
    theirs: identity.core_url,
    ours: recordedCoreUrl,
  });
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** The generation the node serves now (src/node/serving.ts); undefined while it serves its
 *  registration's. */
export async function readServingGeneration(
  host: Host,
  layout: Layout,
): Promise<number | undefined> {
  const raw = await host.readOwnedBy(layout.servingFile, NODE_UID);
  return raw === undefined ? undefined : parseJsonWith(raw, servingGeneration)?.generation;
}

const servingGeneration = z.object({ generation: z.number().int().positive() });

/** The Docker image a docker node's provider file names: `{ image }` when the name matches an
 *  image reference, `{}` when it does not, undefined without a docker provider file. The file is
 *  the node account's to write, and the name goes into a command the operator is told to run
 *  (SEC-09): a name outside the grammar is never printed, only that there is an image. */
export async function readProviderImage(
  host: Host,
  layout: Layout,
): Promise<{ image?: string } | undefined> {
  const raw = await host.readOwnedBy(layout.providerFile, NODE_UID);
  const file = raw === undefined ? undefined : parseJsonWith(raw, dockerProviderFile);
  if (file === undefined) return undefined;
  const image = file.adapter.image;
  return isImageReference(image) ? { image } : {};
}

const dockerProviderFile = z.object({
  provider: z.literal('docker'),
  adapter: z.object({ image: z.string() }),
});

// Docker's reference grammar: an optional registry host[:port]/, lower-case path components,
// an optional tag and an optional sha256 digest; every character is one a shell and a terminal
// read as itself.
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REGISTRY =
  '(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9-]+)*(?::[0-9]{1,5})?/)?';
const IMAGE_REFERENCE = new RegExp(
  `^${REGISTRY}${COMPONENT}(?:/${COMPONENT})*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?$`,
);

export function isImageReference(value: string): boolean {
  return value.length <= 255 && IMAGE_REFERENCE.test(value);
}
