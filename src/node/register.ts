// `oac-node register` (NODE-01, ENR-02, ENR-03): manual registration with a token file. Every
// input is checked before the host changes; the identity is written before Core is contacted,
// so a retry after a lost answer ends with one node, not two.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical-json.ts';
import { oacError } from '../messages.ts';
import { CoreClient } from '../net/core-client.ts';
import { sharedDispatcher } from '../net/dispatcher.ts';
import { CoreError } from '../net/core-errors.ts';
import type { NodeConfiguration, NodeIdentity } from '../net/core-schemas.ts';
import { parseServiceUrl } from '../net/url-policy.ts';
import { redactor } from '../redact.ts';
import {
  ensureStateDirectory,
  isRegistered,
  loadIdentity,
  newIdentity,
  saveIdentity,
  type RegisteredIdentity,
  type StoredIdentity,
} from './identity-store.ts';
import { loadProviderFile } from './load-provider-file.ts';
import { providerFileDigest, type ProviderFile } from './provider-file.ts';
import { lockStateDirectory } from './state-lock.ts';
import { readTokenFile } from './token-file.ts';
import { refuseAnotherHost } from './host-id.ts';

export interface RegisterRequest {
  configPath: string;
  stateDir: string;
  coreUrl: string;
  /** TRUST-01: the pin of Core's TLS key, kept in the identity (null or absent: the host's store). */
  corePin?: string | null;
  name: string;
  /** Manual registration reads the token from a private file (NODE-01)... */
  tokenFile?: string;
  /** ...the installer passes the one it read from stdin. */
  token?: string;
  /** true when the installer registers (the node then follows generations itself). */
  managed: boolean;
  /** This host's ID (src/node/host-id.ts), recorded with the node; null: the host has none. */
  hostId: string | null;
  /** The operator confirmed that a node recorded with another host ID is this host's (its
   *  machine ID was changed on purpose): the new ID is recorded instead of refusing. */
  sameHost?: boolean;
  clientFor?: (origin: string) => CoreClient;
}

export type RegisterOutcome = 'registered' | 'recovered' | 'unchanged' | 'repinned' | 'rehosted';

export async function registerNode(
  req: RegisterRequest,
): Promise<{ outcome: RegisterOutcome; identity: RegisteredIdentity }> {
  // Everything that can be checked without Core is checked before the host changes.
  const origin = parseServiceUrl(req.coreUrl, 'The Core URL').origin;
  const file = await loadProviderFile(req.configPath);
  const fileOrigin = new URL(file.core_url).origin;
  if (fileOrigin !== origin) {
    throw oacError('core_url_differs', { file_core: fileOrigin, arg_core: origin });
  }
  const token =
    req.token ?? (req.tokenFile === undefined ? undefined : await readTokenFile(req.tokenFile));
  if (token !== undefined) redactor.add(token);

  // The proxy variables (the unit's environment file) are parsed here too (SEC-04).
  const client = (
    req.clientFor ?? ((o) => new CoreClient({ coreUrl: o, dispatcher: sharedDispatcher() }))
  )(origin);

  await ensureStateDirectory(req.stateDir);
  const pin = req.corePin ?? null;
  // A registered node is not registered again: only its pin may change. Without the state lock,
  // which its running service holds: the service reads the identity only when it starts (the
  // installer restarts it after a new pin), and the file is replaced whole.
  const registered = await loadIdentity(req.stateDir);
  if (registered !== undefined && isRegistered(registered)) {
    assertSameInstallation(registered, file, origin, req.stateDir);
    return updateRegistered(client, req, registered, pin);
  }
  const release = await lockStateDirectory(req.stateDir);
  try {
    const existing = await loadIdentity(req.stateDir);
    if (existing !== undefined) assertSameInstallation(existing, file, origin, req.stateDir);
    // A pending identity carries a credential too (ENR-02): on a copy it is the original's.
    if (existing !== undefined && req.sameHost !== true) refuseAnotherHost(existing, req.hostId);
    if (existing !== undefined && isRegistered(existing))
      return await updateRegistered(client, req, existing, pin);
    const identity =
      existing === undefined
        ? newIdentity({
            core_url: origin,
            core_pin: pin,
            installation_id: file.installation_id,
            name: req.name,
            provider: file.provider,
            managed: req.managed,
            host_id: req.hostId,
          })
        : { ...existing, core_pin: pin, host_id: req.hostId };
    redactor.add(identity.credential);
    // ENR-02: on disk before Core hears of it (with the pin this run trusts, on this host).
    if (
      existing === undefined ||
      (existing.core_pin ?? null) !== pin ||
      existing.host_id !== req.hostId
    )
      await saveIdentity(req.stateDir, identity);
    const recovered =
      existing === undefined ? undefined : await recoverLostEnrollment(client, identity);
    const enrolled = recovered ?? (await enroll(client, requireToken(token), identity, file));
    const registered: RegisteredIdentity = { ...identity, enrolled, approved: approvedFrom(file) };
    await saveIdentity(req.stateDir, registered);
    return { outcome: recovered === undefined ? 'registered' : 'recovered', identity: registered };
  } finally {
    await release();
  }
}

/** A registered node is not registered again. Its pin (TRUST-01) changes only once Core answers
 *  under the new one (a mistyped pin would otherwise cut the node off at its next start); its
 *  host ID is recorded when it has none yet, and replaced only when the operator confirmed the
 *  host (issue #40): a copy of the node on another host is refused, before Core is asked. */
async function updateRegistered(
  client: CoreClient,
  req: RegisterRequest,
  identity: RegisteredIdentity,
  pin: string | null,
): Promise<{ outcome: RegisterOutcome; identity: RegisteredIdentity }> {
  if (req.sameHost !== true) refuseAnotherHost(identity, req.hostId);
  const repin = (identity.core_pin ?? null) !== pin;
  const rehost = req.hostId !== null && identity.host_id !== req.hostId;
  if (!repin && !rehost) return { outcome: 'unchanged', identity };
  if (repin) await client.identity(identity.node_id, identity.credential);
  const updated = { ...identity, core_pin: pin, ...(rehost ? { host_id: req.hostId } : {}) };
  await saveIdentity(req.stateDir, updated);
  return { outcome: repin ? 'repinned' : 'rehosted', identity: updated };
}

function requireToken(token: string | undefined): string {
  if (token !== undefined) return token;
  throw oacError('enrollment_token_required');
}

function assertSameInstallation(
  existing: StoredIdentity,
  file: ProviderFile,
  origin: string,
  dir: string,
): void {
  if (existing.core_url === origin && existing.installation_id === file.installation_id) return;
  const values = {
    dir,
    theirs: existing.installation_id,
    their_core: existing.core_url,
    ours: file.installation_id,
    our_core: origin,
  };
  throw oacError('state_dir_foreign', values);
}

/** A pending identity whose enrollment Core did register (the 201 was lost): Core knows it. */
async function recoverLostEnrollment(
  client: CoreClient,
  identity: StoredIdentity,
): Promise<NodeIdentity | undefined> {
  try {
    const view = await client.identity(identity.node_id, identity.credential);
    const { connected: _c, provider_ready: _p, ...enrolled } = view;
    return enrolled;
  } catch (error) {
    if (error instanceof CoreError && error.code === 'node_credential_refused') return undefined;
    throw error;
  }
}

async function enroll(
  client: CoreClient,
  token: string,
  identity: StoredIdentity,
  file: ProviderFile,
): Promise<NodeIdentity> {
  const config = await client.readConfiguration({ kind: 'token', token });
  assertFileMatches(file, config);
  try {
    return await client.enroll(token, {
      node_id: identity.node_id,
      credential: identity.credential,
      name: identity.name,
      provider: config.provider,
      backend_fingerprint: backendFingerprint(file),
      deployment_generation: config.generation,
      specification_digest: config.specification_digest,
      core_url: identity.core_url,
    });
  } catch (error) {
    // A retried enrollment whose first answer was lost finds the token consumed (401) or the
    // ID taken (409) by itself: if Core knows our credential, that first try registered us.
    const ours =
      error instanceof CoreError &&
      (error.code === 'enrollment_token_refused' || error.code === 'node_id_taken');
    const known = ours ? await recoverLostEnrollment(client, identity) : undefined;
    if (known !== undefined) return known;
    throw error;
  }
}

/** The provider file must be a copy of Core's current configuration (guide, manual registration). */
function assertFileMatches(file: ProviderFile, config: NodeConfiguration): void {
  const checks: Array<[string, boolean]> = [
    ['installation_id', file.installation_id === config.installation_id],
    ['provider', file.provider === config.provider],
    ['core_url', new URL(file.core_url).origin === new URL(config.core_url).origin],
    ['generation', file.generation === config.generation],
    ['specification', canonicalJson(file.specification) === canonicalJson(config.specification)],
  ];
  const differing = checks.find(([, same]) => !same);
  if (differing !== undefined) {
    throw oacError('provider_file_stale', { field: differing[0] });
  }
}

/** The digest of the node's backend namespace: where its sandboxes live on this host. */
export function backendFingerprint(file: ProviderFile): string {
  const namespace =
    file.provider === 'docker'
      ? { provider: 'docker', host: file.adapter.host, network: file.adapter.network }
      : { provider: 'microsandbox', runtime_home: file.adapter.runtime_home };
  return `sha256:${createHash('sha256').update(canonicalJson(namespace)).digest('hex')}`;
}

function approvedFrom(file: ProviderFile): RegisteredIdentity['approved'] {
  return {
    provider_file_digest: providerFileDigest(file),
    generation: file.generation,
    specification: file.specification,
  };
}
