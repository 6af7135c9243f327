// Intended state as a value (DECL-01): what an installation wants on a host is a list of
// resources, each with its kind, its identity (key, path or name, all from src/layout.ts) and
// the properties it should have. The same list drives install and rerun (reconcile), --dry-run
// (its diffs), status (the recorded properties against the host) and uninstall (nothing
// wanted, limited to what the journal owns, in reverse order).

// Issue #38: each kind's desired shape is a zod schema here (its type inferred from it); the kind
// modules (src/resources/kind.ts) carry them, beside the shape of what the journal keeps.
import { z } from 'zod';

const PHASES = [
  'account',
  'group',
  'home',
  'program',
  'prepare',
  'proxy-settings',
  'unit',
  'service',
  'ready',
] as const;
/** The listr phase a resource shows under on a terminal (installer/install.ts). */
export type Phase = (typeof PHASES)[number];

const text = z.string();
const base = {
  /** Stable: the journal's key for this resource. */
  key: text,
  title: text,
  phase: z.enum(PHASES),
  /** Keys of what must stay while this resource stays: its owner and the directories it lies
   *  in (uninstall keeps them, saying why, when this one is kept). */
  needs: z.array(text).optional(),
};
const mode = z.number().int().min(0).max(0o7777);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const ACCOUNT_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('account'),
  name: text,
  uid: z.number().int().nonnegative(),
  home: text,
  shell: text,
});
export type AccountResource = z.infer<typeof ACCOUNT_RESOURCE>;

export const MEMBERSHIP_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('membership'),
  user: text,
  group: text,
});
export type MembershipResource = z.infer<typeof MEMBERSHIP_RESOURCE>;

export const DIRECTORY_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('directory'),
  path: text,
  mode,
  /** Who makes it: root (the home, the program directories), the node half (HOST-08), the
   *  operator (a shared checkpoint store, HOST-11: the node half must be able to write it), or
   *  root when the host lacks it (`host`: a directory of the host's, /usr/local/share/man/man1,
   *  made when missing and never changed when it is there). */
  madeBy: z.enum(['root', 'node', 'operator', 'host']),
  /** The node account owns it (its home); root otherwise. Node-made ones are the node's. */
  ownedByNode: z.boolean(),
  /** How uninstall removes it: `tree` empties it as oac-node first (it is the node's to
   *  write); `empty` only when nothing else is left in it (it may hold others' things). */
  removal: z.enum(['tree', 'empty']),
});
export type DirectoryResource = z.infer<typeof DIRECTORY_RESOURCE>;

export const FILE_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('file'),
  path: text,
  mode,
  /** SHA-256 of the content it should have (a secret file's keyed one: `hmac-sha256:…`); null:
   *  it should not exist; undefined: unknown (a record from before digests were kept), so it
   *  is not compared. */
  sha256: z
    .string()
    .regex(/^(hmac-sha256:)?[0-9a-f]{64}$/)
    .nullable()
    .optional(),
  /** Install only (never recorded): the content to write, or the file to copy it from. */
  content: text.optional(),
  copyFrom: text.optional(),
  /** Its content holds a secret (the proxy env file): `sha256` is then the file's keyed digest
   *  (records/env-file.ts), never a plain one, and no digest of it is cached or printed. */
  secret: z.literal(true).optional(),
  /** The node program's version (UPG-01): recorded, so the next run knows what it replaces (a
   *  dry run says `A → B`) and refuses to go back without being asked. */
  version: text.optional(),
  /** A line every version the installer writes holds: a file already there without it (or
   *  anything but a regular file) is someone else's, refused and never removed. */
  mark: text.optional(),
  /** A marked file whose directory is a step of the same plan (the manual page's): its
   *  directory missing is no refusal, the step before makes it. */
  parentPlanned: z.literal(true).optional(),
  /** Good to have, not needed (the manual page): what would refuse it (someone else's file in
   *  its place, no directory for it) leaves it out instead of refusing the run. */
  optional: z.literal(true).optional(),
});
export type FileResource = z.infer<typeof FILE_RESOURCE>;

export const UNIT_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('unit'),
  unit: text,
  path: text,
  sha256: sha256.optional(),
  content: text.optional(),
});
export type UnitResource = z.infer<typeof UNIT_RESOURCE>;

export const SERVICE_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('service'),
  unit: text,
  /** Digest of everything the running service read when it started (DECL-03). */
  inputs: text.optional(),
  /** Keys of the resources it reads: a change to any of them restarts it. */
  reads: z.array(text),
});
export type ServiceResource = z.infer<typeof SERVICE_RESOURCE>;

export const NETWORK_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('network'),
  name: text,
  socket: text,
  /** The label the node half puts on the network it creates: the proof that it is ours. */
  label: z.strictObject({ key: text, value: text }),
});
export type NetworkResource = z.infer<typeof NETWORK_RESOURCE>;

/** The half that runs as oac-node (HOST-08): node files, image, provider file, registration.
 *  It is not recorded; what of it can be removed is listed as its own resources. */
export const NODE_HALF_RESOURCE = z.strictObject({ ...base, kind: z.literal('node') });
export type NodeHalfResource = z.infer<typeof NODE_HALF_RESOURCE>;

/** OFFLINE-01: a bundle's release staged for the running node's rollout (an install from a
 *  bundle while the node serves an older generation than Core's): the node half copies its
 *  files, and the service restarts to take it (src/installation/staged-release.ts). Not
 *  recorded: what it copies lives in the node's state. */
export const STAGED_RELEASE_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('staged-release'),
  release: text,
  generation: z.number().int().nonnegative(),
  unit: text,
});
export type StagedReleaseResource = z.infer<typeof STAGED_RELEASE_RESOURCE>;

/** UPG-02: the program an upgrade replaces, kept beside it until the new one is ready
 *  (src/installation/previous-program.ts). The journal records it as the file it is. */
export const PREVIOUS_PROGRAM_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('previous-program'),
  /** Where it is kept. */
  path: text,
  /** The installed program it keeps. */
  program: text,
  /** The SHA-256 of the program this run installs: nothing to keep when it is the same. */
  sha256,
});
export type PreviousProgramResource = z.infer<typeof PREVIOUS_PROGRAM_RESOURCE>;

/** UPG-02: the step that settles an upgrade once its steps ran (or one failed): the kept
 *  program dropped once the new one is ready, or put back (src/installation/upgrade-rollback.ts). */
export const UPGRADE_ROLLBACK_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('upgrade-rollback'),
  /** Where the program is kept. */
  path: text,
  /** The service that runs the program. */
  unit: text,
  /** The version of the program this run installs, when known. */
  version: text.optional(),
  /** Runs after a failed step too (src/core/driver.ts). */
  settles: z.literal(true),
});
export type UpgradeRollbackResource = z.infer<typeof UPGRADE_ROLLBACK_RESOURCE>;

/** UNI-02…05: the installation's record, an uninstall's last step
 *  (src/installation/installation-record.ts). */
export const INSTALLATION_RECORD_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('installation-record'),
  /** The journal's file. */
  path: text,
  /** The unit systemd forgets before the record goes. */
  unit: text,
  /** The record stays with the store Core has not confirmed (UNI-05). */
  keep: z.boolean(),
});
export type InstallationRecordResource = z.infer<typeof INSTALLATION_RECORD_RESOURCE>;

// What the node half itself wants (src/node/node-desired.ts): it reconciles these as oac-node,
// with the same loop and drivers. They live inside its state and store, which root records and
// removes as whole directories, so they are never recorded themselves.

/** The Runtime image in Docker (DL-05: there already means no download). */
export const DOCKER_IMAGE_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('docker-image'),
  reference: text,
  /** The IDs Docker may report for it: the image ID and the manifest digest. */
  ids: z.array(text),
  /** The manifest's file that carries it. */
  file: text,
  socket: text,
});
export type DockerImageResource = z.infer<typeof DOCKER_IMAGE_RESOURCE>;

/** A microsandbox file of the release (Runtime, firmware, helper), verified by SHA-256. */
export const NODE_FILE_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('node-file'),
  path: text,
  file: text,
  sha256,
  /** The helper runs: executable once verified, never before. */
  executable: z.boolean(),
});
export type NodeFileResource = z.infer<typeof NODE_FILE_RESOURCE>;

/** The Runtime image imported into the microsandbox store (an OCI layout with index.json). */
export const STORE_IMAGE_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('store-image'),
  dir: text,
  reference: text,
  file: text,
});
export type StoreImageResource = z.infer<typeof STORE_IMAGE_RESOURCE>;

/** The provider file the node runs with (NODE-05: once registered, only the approved one). */
export const PROVIDER_FILE_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('provider-file'),
  path: text,
  content: text,
  /** Where the node's identity says whether it registered (then the file is what Core approved). */
  stateDir: text,
});
export type ProviderFileResource = z.infer<typeof PROVIDER_FILE_RESOURCE>;

/** The node's registration with Core (ENR-02: identity first, then enrollment). */
export const REGISTRATION_RESOURCE = z.strictObject({
  ...base,
  kind: z.literal('registration'),
  stateDir: text,
  configPath: text,
  coreUrl: text,
  /** TRUST-01: the pin the node keeps for Core (null: the host's trust store). */
  corePin: text.nullable(),
  name: text,
  /** Issue #40: the host the node belongs to (src/node/host-id.ts); null: the host has none. */
  hostId: text.nullable(),
  /** Issue #40: a node recorded with another host ID is this host's (install --same-host). */
  sameHost: z.boolean(),
});
export type RegistrationResource = z.infer<typeof REGISTRATION_RESOURCE>;

export type Resource =
  | AccountResource
  | MembershipResource
  | DirectoryResource
  | FileResource
  | UnitResource
  | ServiceResource
  | NetworkResource
  | NodeHalfResource
  | StagedReleaseResource
  | PreviousProgramResource
  | UpgradeRollbackResource
  | InstallationRecordResource
  | DockerImageResource
  | NodeFileResource
  | StoreImageResource
  | ProviderFileResource
  | RegistrationResource;

/** The kinds the journal records (root's resources); the node half's own are not. */
export type RecordedKind =
  'account' | 'membership' | 'directory' | 'file' | 'unit' | 'service' | 'network';
export type RecordedResource = Extract<Resource, { kind: RecordedKind }>;

export type Kind = Resource['kind'];
export type ResourceOf<K extends Kind> = Extract<Resource, { kind: K }>;
