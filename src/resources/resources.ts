// Intended state as a value (DECL-01): what an installation wants on a host is a list of
// resources, each with its kind, its identity (key, path or name, all from src/layout.ts) and
// the properties it should have. The same list drives install and rerun (reconcile), --dry-run
// (its diffs), status (the recorded properties against the host) and uninstall (nothing
// wanted, limited to what the journal owns, in reverse order).

/** The listr phase a resource shows under on a terminal (installer/install.ts). */
export type Phase =
  'account' | 'group' | 'home' | 'program' | 'prepare' | 'proxy-settings' | 'unit' | 'service';

interface Base {
  /** Stable: the journal's key for this resource. */
  key: string;
  title: string;
  phase: Phase;
  /** Keys of what must stay while this resource stays: its owner and the directories it lies
   *  in (uninstall keeps them, saying why, when this one is kept). */
  needs?: string[];
}

export interface AccountResource extends Base {
  kind: 'account';
  name: string;
  uid: number;
  home: string;
  shell: string;
}

export interface MembershipResource extends Base {
  kind: 'membership';
  user: string;
  group: string;
}

export interface DirectoryResource extends Base {
  kind: 'directory';
  path: string;
  mode: number;
  /** Who makes it: root (the home, the program directories), the node half (HOST-08), or the
   *  operator (a shared checkpoint store, HOST-11: the node half must be able to write it). */
  madeBy: 'root' | 'node' | 'operator';
  /** The node account owns it (its home); root otherwise. Node-made ones are the node's. */
  ownedByNode: boolean;
  /** How uninstall removes it: `tree` empties it as oac-node first (it is the node's to
   *  write); `empty` only when nothing else is left in it (it may hold others' things). */
  removal: 'tree' | 'empty';
}

export interface FileResource extends Base {
  kind: 'file';
  path: string;
  mode: number;
  /** SHA-256 of the content it should have; null: it should not exist; undefined: unknown
   *  (a record from before digests were kept), so it is not compared. */
  sha256?: string | null;
  /** Install only (never recorded): the content to write, or the file to copy it from. */
  content?: string;
  copyFrom?: string;
  /** Its content holds a secret (the proxy env file): `sha256` is then the file's keyed digest
   *  (records/env-file.ts), never a plain one, and no digest of it is cached or printed. */
  secret?: true;
  /** The node program's version (UPG-01): recorded, so the next run knows what it replaces (a
   *  dry run says `A → B`) and refuses to go back without being asked. */
  version?: string;
  /** A line every version the installer writes holds: a file already there without it (or
   *  anything but a regular file) is someone else's, refused and never removed. */
  mark?: string;
}

export interface UnitResource extends Base {
  kind: 'unit';
  unit: string;
  path: string;
  sha256?: string;
  content?: string;
}

export interface ServiceResource extends Base {
  kind: 'service';
  unit: string;
  /** Digest of everything the running service read when it started (DECL-03). */
  inputs?: string;
  /** Keys of the resources it reads: a change to any of them restarts it. */
  reads: string[];
}

export interface NetworkResource extends Base {
  kind: 'network';
  name: string;
  socket: string;
  /** The label the node half puts on the network it creates: the proof that it is ours. */
  label: { key: string; value: string };
}

/** The half that runs as oac-node (HOST-08): node files, image, provider file, registration.
 *  It is not recorded; what of it can be removed is listed as its own resources. */
export interface NodeHalfResource extends Base {
  kind: 'node';
}

/** OFFLINE-01: a bundle's release staged for the running node's rollout (an install from a
 *  bundle while the node serves an older generation than Core's): the node half copies its
 *  files, and the service restarts to take it (src/installation/staged-release.ts). Not
 *  recorded: what it copies lives in the node's state. */
export interface StagedReleaseResource extends Base {
  kind: 'staged-release';
  release: string;
  generation: number;
  unit: string;
}

// What the node half itself wants (src/node/node-desired.ts): it reconciles these as oac-node,
// with the same loop and drivers. They live inside its state and store, which root records and
// removes as whole directories, so they are never recorded themselves.

/** The Runtime image in Docker (DL-05: there already means no download). */
export interface DockerImageResource extends Base {
  kind: 'docker-image';
  reference: string;
  /** The IDs Docker may report for it: the image ID and the manifest digest. */
  ids: string[];
  /** The manifest's file that carries it. */
  file: string;
  socket: string;
}

/** A microsandbox file of the release (Runtime, firmware, helper), verified by SHA-256. */
export interface NodeFileResource extends Base {
  kind: 'node-file';
  path: string;
  file: string;
  sha256: string;
  /** The helper runs: executable once verified, never before. */
  executable: boolean;
}

/** The Runtime image imported into the microsandbox store (an OCI layout with index.json). */
export interface StoreImageResource extends Base {
  kind: 'store-image';
  dir: string;
  reference: string;
  file: string;
}

/** The provider file the node runs with (NODE-05: once registered, only the approved one). */
export interface ProviderFileResource extends Base {
  kind: 'provider-file';
  path: string;
  content: string;
  /** Where the node's identity says whether it registered (then the file is what Core approved). */
  stateDir: string;
}

/** The node's registration with Core (ENR-02: identity first, then enrollment). */
export interface RegistrationResource extends Base {
  kind: 'registration';
  stateDir: string;
  configPath: string;
  coreUrl: string;
  /** TRUST-01: the pin the node keeps for Core (null: the host's trust store). */
  corePin: string | null;
  name: string;
}

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
