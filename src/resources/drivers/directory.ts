// Directories: the home and the program directories, made by root with their final owner and
// mode from the start (SEC-02); the node's own directories (.oac, .oac/nodes, its state, the
// microsandbox store), made by the node half (HOST-08) and only checked here. Removal never
// recurses as root: a tree the node can write is emptied as oac-node, and every directory
// itself goes only once empty.
import { dirname } from 'node:path';
import { z } from 'zod';
import { oacError } from '../../messages.ts';
import { readPasswd } from '../../host/accounts.ts';
import { canWriteDirectory } from '../../host/files.ts';
import { NODE_USER } from '../../layout.ts';
import type { Driver, DriverContext } from '../driver.ts';
import type { DirectoryResource } from '../resources.ts';
import { DIRECTORY_RESOURCE } from '../resources.ts';
import { refuse, type StepResult } from '../../core/step.ts';
import { runAsNode } from './as-node.ts';
import { defineKind } from '../kind.ts';

export const DIRECTORY_ACTUAL = z.strictObject({
  exists: z.boolean(),
  isDirectory: z.boolean(),
  uid: z.number().int().optional(),
  mode: z.number().int().optional(),
  /** The operator's directories only: whether this process can write it. */
  writable: z.boolean().optional(),
  /** The host's directories only (madeBy host): its parent is not a directory root can use. */
  noParent: z.boolean().optional(),
});
export type DirectoryActual = z.infer<typeof DIRECTORY_ACTUAL>;

export const directoryDriver: Driver<'directory', DirectoryActual> = {
  async probe(r, { host }) {
    const found = await host.lstat(r.path);
    if (found === undefined && r.madeBy === 'host') {
      // Made only below a parent the host has (its mode is the host's to decide, not umask's).
      const parent = await host.lstat(dirname(r.path));
      return { exists: false, isDirectory: false, noParent: parent?.isDirectory() !== true };
    }
    if (found === undefined) return { exists: false, isDirectory: false };
    if (r.madeBy === 'operator')
      return {
        exists: true,
        isDirectory: found.isDirectory(),
        writable: await canWriteDirectory(host.path(r.path)),
      };
    return {
      exists: true,
      isDirectory: found.isDirectory(),
      uid: found.uid,
      mode: found.mode & 0o7777,
    };
  },
  exists: (a) => a.exists,
  diff(r, a) {
    if (r.madeBy === 'operator' && a.writable !== true)
      return refuse(oacError('checkpoint_root_unwritable', { path: r.path }));
    // A directory of the host's that cannot be had (no parent, something else in its place):
    // what it is for is left out, never the install refused for it (the manual page's).
    if (r.madeBy === 'host' && (a.noParent === true || (a.exists && !a.isDirectory)))
      return { kind: 'skip', detail: `${r.path} cannot be used: left out` };
    if (!a.exists)
      return {
        kind: 'create',
        detail: `create ${r.path} (${octal(r.mode)}${r.ownedByNode ? `, owner ${NODE_USER}` : ''})`,
        why: `${r.path} is gone`,
      };
    if (!a.isDirectory) return refuse(oacError('not_a_directory', { path: r.path }));
    // Root writes into its own directories (the program's): one another account could write
    // would let that account swap what root installs (SEC-02).
    if (isRootsOwn(r) && (a.uid !== 0 || ((a.mode ?? 0) & 0o022) !== 0))
      return {
        kind: 'update',
        detail: `set ${r.path} to root, ${octal(r.mode)}`,
        why: `owner or mode changed (root, ${octal(r.mode)} expected)`,
      };
    return { kind: 'unchanged', detail: r.path };
  },
  async apply(r, action, _actual, { host }) {
    if (action.kind === 'update') {
      await host.setDirectoryOwnerAndMode(r.path, r.mode, { uid: 0, gid: 0 });
      return { outcome: 'updated', detail: r.path };
    }
    const owner = r.ownedByNode ? await nodeIds(host) : undefined;
    await host.ensureDirectory(r.path, r.mode, owner);
    return { outcome: 'created', detail: r.path };
  },
  remove: (r, _actual, ctx) => (r.removal === 'tree' ? removeTree(r, ctx) : removeIfEmpty(r, ctx)),
};

/** Emptied as the node account (its files are its own), then the directory itself. What the
 *  node cannot remove (something root or another account put there, or a process of the node
 *  still writing) keeps the directory, said in the step's line; find's own message is not
 *  repeated: it names files the node account named (SEC-09). */
async function removeTree(r: DirectoryResource, { host }: DriverContext): Promise<StepResult> {
  const emptied = await runAsNode(host, ['find', host.path(r.path), '-mindepth', '1', '-delete']);
  const result = await removeIfEmpty(r, { host } as DriverContext);
  if (result.outcome !== 'kept' || emptied.ok) return result;
  return {
    outcome: 'kept',
    detail: `${r.path} (not empty: ${NODE_USER} could not remove all of it)`,
  };
}

async function removeIfEmpty(r: DirectoryResource, { host }: DriverContext): Promise<StepResult> {
  if (r.madeBy === 'node') {
    // rmdir as the node account: it refuses a directory that still holds anything.
    const done = await runAsNode(host, ['rmdir', '--', host.path(r.path)]);
    if (done.ok || (await host.lstat(r.path)) === undefined)
      return { outcome: 'removed', detail: r.path };
    return { outcome: 'kept', detail: `${r.path} (not empty)` };
  }
  const result = await host.removeEmptyDirectory(r.path);
  if (result === 'not empty') return { outcome: 'kept', detail: `${r.path} (not empty)` };
  return { outcome: 'removed', detail: r.path };
}

async function nodeIds(host: DriverContext['host']): Promise<{ uid: number; gid: number }> {
  const user = (await readPasswd(host)).find((u) => u.name === NODE_USER);
  if (user === undefined) throw new Error(`the account ${NODE_USER} is made before its home`);
  return { uid: user.uid, gid: user.gid };
}

function isRootsOwn(r: DirectoryResource): boolean {
  return r.madeBy === 'root' && !r.ownedByNode;
}

function octal(mode: number): string {
  return `0${mode.toString(8)}`;
}

/** A directory as a kind (src/resources/kind.ts). Provable without a record: the node state
 *  that holds this installation's identity, and the program's directories while the program is
 *  there (src/installation/provable.ts). */
export const directoryKind = defineKind({
  kind: 'directory',
  desired: DIRECTORY_RESOURCE,
  recorded: true,
  driver: directoryDriver,
  actual: DIRECTORY_ACTUAL,
  name: (r) => r.path,
  removal: (r) => (r.removal === 'tree' ? `remove ${r.path}` : `remove ${r.path} when empty`),
  madeByNode: (r) => r.madeBy === 'node',
  async provable(r, { host, layout }, proofs) {
    if (r.path === layout.stateDir) return proofs.stateIsThisInstallation();
    return (
      layout.program.startsWith(`${r.path}/`) && (await host.lstat(layout.program)) !== undefined
    );
  },
});
