// The node's identity in its state directory. ENR-02: the node chooses its UUID and credential
// and writes them here BEFORE contacting Core, so a lost enrollment answer is retried with the
// same identity. The file holds the node credential: it is 0600 in a 0700 directory that only
// the node account can enter (HOST-04), and its contents are never printed.
import { randomBytes, randomUUID } from 'node:crypto';
import * as z from 'zod';
import { oacError } from '../messages.ts';
import { parseJsonWith } from '../json-file.ts';
import { ensureDirectory, readIfExists, writeFileAtomic } from '../host/files.ts';
import { canonicalUuid, nodeCredential, nodeIdentity, provider } from '../net/core-schemas.ts';
import { stateFile } from '../layout.ts';
import { corePin } from '../net/core-pin.ts';
import { HOST_ID_PATTERN } from './host-id.ts';

const approved = z.object({
  provider_file_digest: z.string(),
  generation: z.number().int().positive(),
  specification: z.record(z.string(), z.unknown()),
});

export const storedIdentity = z.object({
  format: z.literal(1),
  node_id: canonicalUuid,
  credential: nodeCredential,
  core_url: z.string().url(),
  /** TRUST-01: the pin of Core's TLS key the node trusts for core_url; absent or null: the
   *  host's trust store. The service, status and uninstall read it from here. */
  core_pin: corePin.nullable().optional(),
  installation_id: z.string().min(1),
  name: z.string().min(1),
  provider,
  managed: z.boolean(),
  created_at: z.string(),
  /** The host the node belongs to (src/node/host-id.ts); absent: registered before it was
   *  recorded (a rerun records it); null: the host had no machine ID. */
  host_id: z.string().regex(HOST_ID_PATTERN).nullable().optional(),
  /** Core's answer to the enrollment; absent while registration is pending. */
  enrolled: nodeIdentity.optional(),
  /** The provider file's configuration at registration (NODE-05). */
  approved: approved.optional(),
});
export type StoredIdentity = z.infer<typeof storedIdentity>;
export type RegisteredIdentity = StoredIdentity &
  Required<Pick<StoredIdentity, 'enrolled' | 'approved'>>;

export function isRegistered(identity: StoredIdentity): identity is RegisteredIdentity {
  return identity.enrolled !== undefined && identity.approved !== undefined;
}

export function identityPath(stateDir: string): string {
  return stateFile(stateDir, 'identity');
}

export async function ensureStateDirectory(stateDir: string): Promise<void> {
  await ensureDirectory(stateDir, 0o700);
}

export async function loadIdentity(stateDir: string): Promise<StoredIdentity | undefined> {
  const path = identityPath(stateDir);
  const raw = await readIfExists(path);
  if (raw === undefined) return undefined;
  const identity = parseJsonWith(raw, storedIdentity);
  if (identity === undefined) {
    throw oacError('identity_unreadable', { path });
  }
  return identity;
}

export async function saveIdentity(stateDir: string, identity: StoredIdentity): Promise<void> {
  await writeFileAtomic(identityPath(stateDir), `${JSON.stringify(identity, null, 2)}\n`, 0o600);
}

/** A new identity: a canonical random UUID and a 43-character URL-safe credential. */
export function newIdentity(
  fields: Pick<
    StoredIdentity,
    'core_url' | 'core_pin' | 'installation_id' | 'name' | 'provider' | 'managed' | 'host_id'
  >,
): StoredIdentity {
  return {
    format: 1,
    node_id: randomUUID(),
    credential: randomBytes(32).toString('base64url'),
    created_at: new Date().toISOString(),
    ...fields,
  };
}
