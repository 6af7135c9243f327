// A file root reads or writes on an operator's word, where whoever else could change it could
// make root do what no one reviewed (a saved plan, DECL-05; docs/security.md, issue #37). The
// path is walked one component at a time from `/` with descriptors: each directory is opened
// (O_DIRECTORY | O_NOFOLLOW) relative to the one before, through /proc/self/fd (the openat(2)
// that Node's fs lacks), and the file is opened relative to the last. So a component cannot be
// swapped between its check and its use, and every component is checked: each directory looked
// in must be root's and writable by no one else unless sticky (in a sticky directory such as
// /tmp no one else can rename or remove root's file: OpenSSH's StrictModes, sudo's sudoers
// checks), and each symbolic link on the way must be root's (its target is walked the same way).
import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink, type FileHandle } from 'node:fs/promises';
import { isAbsent, isCode, writeFileAtomic } from './files.ts';

/** Linux's own limit on the links one path may pass through (MAXSYMLINKS). */
const MAX_LINKS = 40;

/** Where a walk stopped: a directory others can change, a directory on the way that is not
 *  there (`missing`), or another problem. */
type Stopped = { exposed: string } | { problem: string; missing?: true };
type Walked = { dir: FileHandle; real: string } | Stopped;

/** `/proc/self/fd/N`: names what `handle` has open, whatever happens to its path meanwhile. */
const at = (handle: FileHandle, name: string) => `/proc/self/fd/${handle.fd}/${name}`;

const components = (path: string) => path.split('/').filter((c) => c !== '' && c !== '.');

const joinReal = (dir: string, name: string) => (dir === '/' ? `/${name}` : `${dir}/${name}`);

const parentOf = (dir: string) => dir.slice(0, Math.max(dir.lastIndexOf('/'), 1));

/** Someone other than root could add, rename or remove names in this directory. */
function othersCanChange(dir: Stats): boolean {
  const othersWrite = (dir.mode & 0o022) !== 0 && (dir.mode & 0o1000) === 0;
  return dir.uid !== 0 || othersWrite;
}

const openDirectory = (path: string) =>
  open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);

interface Walk {
  dir: FileHandle;
  real: string;
  links: number;
}

/** The directory `names` lead to from `/`, open, every step checked; or why not. */
async function walk(names: string[]): Promise<Walked> {
  // The walk names each directory it holds by /proc/self/fd: without /proc it cannot check.
  if ((await lstat('/proc/self/fd').catch(() => undefined)) === undefined)
    return { problem: 'cannot be checked: /proc is not mounted' };
  const state: Walk = { dir: await openDirectory('/'), real: '/', links: 0 };
  try {
    const stopped = await descend(state, [...names]);
    if (stopped === undefined) return { dir: state.dir, real: state.real };
    await state.dir.close();
    return stopped;
  } catch (error) {
    await state.dir.close();
    throw error;
  }
}

/** Takes `queue`'s names one by one from `state`'s directory; undefined once all are taken. */
async function descend(state: Walk, queue: string[]): Promise<Stopped | undefined> {
  for (;;) {
    if (othersCanChange(await state.dir.stat())) return { exposed: state.real };
    const name = queue.shift();
    if (name === undefined) return undefined;
    const stopped = await step(state, name, queue);
    if (stopped !== undefined) return stopped;
  }
}

/** One name: a link's target goes to the front of `queue`, a directory is entered. What the
 *  file system answers on the way (a name too long, a component swapped meanwhile) is a
 *  problem of the path, one line, never an internal error. */
async function step(state: Walk, name: string, queue: string[]): Promise<Stopped | undefined> {
  const path = name === '..' ? parentOf(state.real) : joinReal(state.real, name);
  try {
    return await enterName(state, name, path, queue);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string') throw error;
    if (code === 'ENOENT')
      return { problem: `lies below ${path}, which does not exist`, missing: true };
    if (code === 'ENOTDIR' || code === 'ELOOP')
      return { problem: `lies below ${path}, which changed while it was read` };
    return { problem: `lies below ${path}, which cannot be read (${code})` };
  }
}

async function enterName(
  state: Walk,
  name: string,
  path: string,
  queue: string[],
): Promise<Stopped | undefined> {
  const found = await lstat(at(state.dir, name));
  if (found.isSymbolicLink()) {
    if (found.uid !== 0)
      return { problem: `is reached through the link ${path}, which someone other than root owns` };
    if ((state.links += 1) > MAX_LINKS) return { problem: 'is reached through too many links' };
    const target = await readlink(at(state.dir, name));
    queue.unshift(...components(target));
    if (target.startsWith('/')) await enter(state, await openDirectory('/'), '/');
    return undefined;
  }
  if (!found.isDirectory()) return { problem: `lies below ${path}, which is not a directory` };
  const next = await openDirectory(at(state.dir, name));
  let opened: Stats;
  try {
    opened = await next.stat();
  } catch (error) {
    await next.close();
    throw error;
  }
  if (opened.dev !== found.dev || opened.ino !== found.ino) {
    await next.close();
    return { problem: `lies below ${path}, which changed while it was read` };
  }
  await enter(state, next, path);
  return undefined;
}

async function enter(state: Walk, dir: FileHandle, real: string): Promise<void> {
  await state.dir.close();
  state.dir = dir;
  state.real = real;
}

/** The absolute path `path` names, as the kernel reads it (`..` is not folded by hand). */
function absolute(path: string): string {
  return path.startsWith('/') ? path : `${process.cwd()}/${path}`;
}

/** The directory part and the last name of `path`; undefined when the last is no file name
 *  (`…/`, `…/.`, `…/..`: the kernel would not take them for a file either). */
function split(path: string): { dirNames: string[]; name: string } | undefined {
  const last = path.split('/').pop();
  if (last === undefined || last === '' || last === '.' || last === '..') return undefined;
  const names = components(absolute(path));
  names.pop();
  return { dirNames: names, name: last };
}

/** A file only root may have written (a saved plan, DECL-05): reached as above, a regular file,
 *  not a final link, owned by root, writable by no one else, at most `maxBytes`; or why not. */
export async function readRootOnlyFile(
  path: string,
  maxBytes: number,
): Promise<{ bytes: Buffer } | { problem: string }> {
  const parts = split(path);
  if (parts === undefined) return { problem: 'names no file' };
  const walked = await walk(parts.dirNames);
  if ('exposed' in walked)
    return { problem: `lies in ${walked.exposed}, which someone other than root can change` };
  if ('problem' in walked) return { problem: walked.missing ? 'does not exist' : walked.problem };
  let handle;
  try {
    const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    handle = await open(at(walked.dir, parts.name), flags);
  } catch (error) {
    if (isAbsent(error)) return { problem: 'does not exist' };
    if (isCode(error, 'ELOOP')) return { problem: 'is a symbolic link' };
    return { problem: `cannot be read (${(error as { code?: string }).code ?? 'error'})` };
  } finally {
    await walked.dir.close();
  }
  try {
    const found = await handle.stat();
    if (!found.isFile()) return { problem: 'is not a regular file' };
    if (found.uid !== 0 || (found.mode & 0o022) !== 0)
      return { problem: "is not root's alone (owned by root, writable by no one else)" };
    if (found.size > maxBytes) return { problem: 'is too large' };
    return { bytes: await handle.readFile() };
  } finally {
    await handle.close();
  }
}

/** Writes `data` atomically as root's file `path` (mode `mode`), in the directory reached and
 *  checked as above and held open: the temp file, the rename and its sync all name that very
 *  directory. Undefined when written; otherwise why not (nothing was written). */
export async function writeRootOnlyFile(
  path: string,
  data: string,
  mode: number,
): Promise<{ problem: string } | undefined> {
  const parts = split(path);
  if (parts === undefined) return { problem: 'names no file' };
  const walked = await walk(parts.dirNames);
  if ('exposed' in walked)
    return { problem: `would lie in ${walked.exposed}, which someone other than root can change` };
  if ('problem' in walked) return { problem: walked.problem };
  try {
    await writeFileAtomic(at(walked.dir, parts.name), data, mode);
    return undefined;
  } catch (error) {
    return { problem: `cannot be written (${(error as { code?: string }).code ?? 'error'})` };
  } finally {
    await walked.dir.close();
  }
}
