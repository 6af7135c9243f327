// Root's files: the node program (root-owned, so the node cannot replace what its service runs)
// and the proxy env file (0600, HOST-06), both in root-only directories. Compared by SHA-256,
// owner and mode; written atomically with their final mode (SEC-02).
import { z } from 'zod';
import { dirname } from 'node:path';
import { copyFileAtomic } from '../../host/files.ts';
import { PROGRAM_ROOT, isInstallationId } from '../../layout.ts';
import { oacError } from '../../messages.ts';
import type { OacError } from '../../errors.ts';
import type { Driver, DriverContext } from '../driver.ts';
import type { FileResource } from '../resources.ts';
import { FILE_RESOURCE } from '../resources.ts';
import { refuse, type StepResult } from '../../core/step.ts';
import { fileSha256, rememberSha256 } from './file-digest.ts';
import { envFileDigest, KEYED_DIGEST, readEnvFile } from '../../../records/env-file.ts';
import { sha256 } from '../sha256.ts';
import { defineKind, textProp } from '../kind.ts';

export const FILE_ACTUAL = z.strictObject({
  exists: z.boolean(),
  sha256: z.string().optional(),
  mode: z.number().int().optional(),
  uid: z.number().int().optional(),
  regular: z.boolean().optional(),
  /** A directory where the file belongs: neither replaced nor removed (a rename or unlink
   *  would fail half way through a run), refused in the plan. */
  directory: z.boolean().optional(),
  /** Not the installer's (the resource has a mark and the file lacks it): refused, kept. */
  foreign: z.boolean().optional(),
  /** A marked file's directory is missing: refused in the plan, before any write. */
  noParent: z.boolean().optional(),
});
export type FileActual = z.infer<typeof FILE_ACTUAL>;

/** What refuses a file step: a directory in its place, a marked file's directory missing, or
 *  someone else's file where the marked one belongs. */
function fileRefusal(r: FileResource, a: FileActual): OacError | undefined {
  if (a.directory === true) return oacError('not_a_file', { path: r.path });
  if (r.sha256 === null) return undefined;
  if (a.noParent === true) return oacError('directory_missing', { path: dirname(r.path) });
  if (a.exists && a.foreign === true) return oacError('path_taken', { path: r.path });
  return undefined;
}

/** A marked file's directory: there, or (parentPlanned) to be made by a step before it, below a
 *  directory that is there. */
async function parentUsable(ctx: DriverContext, r: FileResource): Promise<boolean> {
  const parent = await ctx.host.lstat(dirname(r.path));
  if (parent !== undefined || r.parentPlanned !== true) return parent?.isDirectory() === true;
  return (await ctx.host.lstat(dirname(dirname(r.path))))?.isDirectory() === true;
}

/** Larger than any file with a mark the installer writes: someone else's, unread. */
const MARKED_MAX_BYTES = 64 * 1024;

export const fileDriver: Driver<'file', FileActual> = {
  async probe(r, ctx) {
    const found = await ctx.host.lstat(r.path);
    if (found === undefined) {
      // A marked file lies in a directory of the host's (/usr/local/sbin), not one of ours.
      if (r.mark === undefined) return { exists: false };
      return { exists: false, noParent: !(await parentUsable(ctx, r)) };
    }
    const regular = found.isFile();
    const sha256 = !regular
      ? undefined
      : r.secret === true
        ? await secretDigest(ctx, r)
        : await fileSha256(ctx, ctx.host.path(r.path));
    const directory = found.isDirectory();
    const foreign = r.mark === undefined ? undefined : !(await isMarked(ctx, r, r.mark));
    const mode = found.mode & 0o7777;
    return { exists: true, regular, directory, sha256, mode, uid: found.uid, foreign };
  },
  exists: (a) => a.exists,
  diff(r, a) {
    const refused = fileRefusal(r, a);
    if (refused !== undefined)
      return r.optional === true
        ? { kind: 'skip', detail: `${r.path}: left out (${refused.message})` }
        : refuse(refused);
    if (r.sha256 === null)
      return a.exists
        ? { kind: 'remove', detail: `remove ${r.path} (this run has none)` }
        : { kind: 'skip', detail: `no ${r.path}` };
    if (!a.exists) return { kind: 'create', detail: `write ${r.path}`, why: `${r.path} is gone` };
    if (a.regular !== true)
      return { kind: 'replace', detail: `replace ${r.path}`, why: 'it is not a regular file' };
    if (r.sha256 !== undefined && a.sha256 !== r.sha256)
      return {
        kind: 'replace',
        detail: `replace ${r.path} (its content differs)`,
        // A secret's file is said to have changed, with no digest (issue #27 finding 5).
        why:
          r.secret === true
            ? 'its content changed'
            : `its SHA-256 is ${a.sha256 ?? 'unknown'}, not the installed ${r.sha256}`,
      };
    if (a.uid !== 0 || a.mode !== r.mode)
      return {
        kind: 'update',
        detail: `set ${r.path} to root, 0${r.mode.toString(8)}`,
        why: `owner or mode changed (root, 0${r.mode.toString(8)} expected)`,
      };
    return { kind: 'unchanged', detail: r.path };
  },
  async apply(r, action, _actual, ctx) {
    const { host } = ctx;
    if (action.kind === 'remove') {
      await host.unlinkFile(r.path);
      return { outcome: 'removed', detail: r.path };
    }
    // Atomic: a temp file renamed over whatever is there (a link is replaced, not followed).
    const path = host.path(r.path);
    if (r.copyFrom !== undefined) {
      // Issue #27.6: the copy is what the plan wants, or it is never renamed into place (the
      // source could be swapped between its hash and the copy).
      const copied = await copyFileAtomic(r.copyFrom, path, r.mode, wanted(r.copyFrom, r.sha256));
      await rememberSha256(ctx, path, copied);
    } else if (r.content !== undefined) {
      await host.writeFile(r.path, r.content, r.mode);
      // The next run's probe finds it by the cache, not by reading it (a rerun writes nothing,
      // not even the cache). Never a secret's: its digest is keyed and read afresh.
      if (r.secret !== true && typeof r.sha256 === 'string')
        await rememberSha256(ctx, path, r.sha256);
    } else throw new Error(`${r.path}: nothing to write`);
    const outcome =
      action.kind === 'create' ? 'created' : action.kind === 'update' ? 'updated' : 'replaced';
    return { outcome, detail: r.path };
  },
  replacedBy: (_r, a) =>
    a.foreign === true ? "not the installer's: someone replaced it" : undefined,
  async remove(r, a, { host }) {
    if (a.directory === true) return directoryKept(r.path);
    await host.unlinkFile(r.path);
    return { outcome: 'removed', detail: r.path };
  },
};

/** A directory found where a file of ours was: not ours to remove, said in the step's line. */
export const directoryKept = (path: string): StepResult => ({
  outcome: 'kept',
  detail: `${path} (a directory, not the file the installer wrote)`,
});

/** Whether what is at the resource's path is the installer's: a regular file holding the mark
 *  line (read without following a link, bounded, never blocking on a FIFO), or a link an
 *  operator made to an installation's program (under PROGRAM_ROOT, only root's), which the
 *  installer's file then replaces. */
async function isMarked(ctx: DriverContext, r: FileResource, mark: string): Promise<boolean> {
  const found = await ctx.host.readSmallFile(r.path, MARKED_MAX_BYTES);
  if (found.kind === 'file') return found.bytes.toString('utf8').split('\n').includes(mark);
  if (found.kind !== 'link') return false;
  return isProgramPath((await ctx.host.readLink(r.path)) ?? '');
}

/** An absolute, plain path of an installation's program: PROGRAM_ROOT/<id>/oac-node. */
function isProgramPath(target: string): boolean {
  const [id, name, ...more] = target.startsWith(`${PROGRAM_ROOT}/`)
    ? target.slice(PROGRAM_ROOT.length + 1).split('/')
    : [];
  return isInstallationId(id) && name === 'oac-node' && more.length === 0;
}

/** The check a copy must pass: its SHA-256 is the one the resource names. */
function wanted(source: string, sha256: string | null | undefined): (actual: string) => void {
  return (actual) => {
    if (typeof sha256 !== 'string') throw new Error(`${source}: no SHA-256 to check its copy by`);
    if (actual === sha256) return;
    throw oacError('program_copy_mismatch', { source, actual, expected: sha256 });
  };
}

/** A secret's file compared in the form its record holds: its keyed digest, or (a record from
 *  before keyed digests) its plain SHA-256, computed here to compare and never kept or shown.
 *  Read afresh each time: never through the digest cache, which would record a plain one. */
async function secretDigest(ctx: DriverContext, r: FileResource): Promise<string | undefined> {
  const content = await readEnvFile(ctx.host, r.path).catch(() => undefined);
  if (content === undefined) return undefined; // gone, or no file of ours: differs
  const legacy = typeof r.sha256 === 'string' && !r.sha256.startsWith(KEYED_DIGEST);
  return legacy ? sha256(content) : envFileDigest(content);
}

/** A file as a kind (src/resources/kind.ts). The journal keeps its mode, digest and the
 *  program's version; a marked file (oac-node on PATH) is provably ours while it holds its mark. */
export const fileKind = defineKind({
  kind: 'file',
  desired: FILE_RESOURCE,
  // `service_inputs`: the program an upgrade keeps carries the service's record from before it
  // (src/installation/upgrade-rollback.ts), for a roll back resumed by a later run.
  recordedShape: z.object({
    mode: z.number().int().optional(),
    sha256: z.string().nullable().optional(),
    version: z.string().optional(),
    service_inputs: z.string().optional(),
  }),
  recorded: true,
  driver: fileDriver,
  actual: FILE_ACTUAL,
  name: (r) => r.path,
  recordedProps: (r) => ({
    mode: r.mode,
    ...(r.sha256 === undefined ? {} : { sha256: r.sha256 }),
    ...(r.version === undefined ? {} : { version: r.version }),
  }),
  fromRecord(r, props) {
    const version = textProp(props, 'version');
    return {
      ...r,
      sha256: textProp(props, 'sha256'),
      ...(version === undefined ? {} : { version }),
      mode: typeof props.mode === 'number' ? props.mode : r.mode,
    };
  },
  // Where the program is copied from differs between runs (its SHA-256 is compared); a secret
  // file's content and keyed digest differ with every new key (the proxy settings are compared
  // instead).
  comparable(r) {
    const { copyFrom: _from, ...rest } = r;
    if (r.secret !== true) return rest;
    const { content: _content, sha256: _sha256, ...kept } = rest;
    return kept;
  },
  secret: (r) => r.secret === true,
  wantedAbsent: (r) => r.sha256 === null,
  version: (r) => r.version,
  async provable(r, ctx) {
    const found = await fileDriver.probe(r, ctx);
    return found.exists && found.foreign !== true;
  },
});
