// The Host: the only door to the machine (docs/design.md). Every path the installer names is a host
// path such as /etc/oac-node; the Host maps it under `root` (the hidden --root, like systemd's
// --root and useradd --prefix) so host tests run the real code on a scratch tree. Processes run
// with a minimal environment: nothing of the caller's (a token, NODE_OPTIONS) leaks into them.
import { constants } from 'node:fs';
import {
  chown,
  lchown,
  link,
  open,
  readdir,
  readlink,
  rename,
  rmdir,
  unlink,
} from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { TOOL_PATH } from './tool-path.ts';
import { runWithLines, type LineChildOptions, type LineChildResult } from './child-lines.ts';
import {
  ensureDirectory,
  isAbsent,
  isCode,
  lstatIfExists,
  readIfExists,
  writeFileAtomic,
} from './files.ts';
import { changing } from './fs-fault.ts';
import { runProcess } from './run-process.ts';

export interface RunOptions {
  input?: string;
  uid?: number;
  gid?: number;
  /** Added to the minimal environment (PATH, LANG=C). */
  env?: Record<string, string>;
  /** Its own session without a terminal (HOST-08: work done as oac-node). */
  newSession?: boolean;
  timeoutMs?: number;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const PATH = TOOL_PATH;

/** The node's own small files (identity, provider file, serving record) are a few KiB. */
const NODE_FILE_MAX_BYTES = 1024 * 1024;

export class Host {
  readonly root: string;

  constructor(root = '/') {
    this.root = resolve(root);
  }

  /** True when host paths live under a scratch tree (tests, image building). */
  get prefixed(): boolean {
    return this.root !== '/';
  }

  /** The real path of a host path. */
  path(hostPath: string): string {
    return this.prefixed ? join(this.root, hostPath) : hostPath;
  }

  async run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
    // Not the caller's directory (as oac-node that may be unreadable, /root: no command here
    // depends on it), and only PATH, LANG=C and what is given (src/host/run-process.ts).
    return runProcess(command, args, {
      input: options.input ?? '',
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
      env: { PATH, LANG: 'C', ...options.env },
      detached: options.newSession ?? false,
      timeoutMs: options.timeoutMs ?? 120_000,
    });
  }

  /** A child in its own session whose stdout lines are handed over as they arrive (OPS-01);
   *  `signal` stops its whole process group (OPS-03). No wall-clock limit (OPS-02). */
  runStreaming(
    command: string,
    args: string[],
    options: LineChildOptions,
  ): Promise<LineChildResult> {
    return runWithLines(command, args, options);
  }

  readFile(hostPath: string): Promise<Buffer | undefined> {
    return readIfExists(this.path(hostPath));
  }

  lstat(hostPath: string) {
    return lstatIfExists(this.path(hostPath));
  }

  /** Where a symlink points (its text, unresolved), or undefined when it is no link. */
  async readLink(hostPath: string): Promise<string | undefined> {
    return readlink(this.path(hostPath)).catch(() => undefined);
  }

  async writeFile(
    hostPath: string,
    data: string | Buffer,
    mode: number,
    owner?: { uid: number; gid: number },
  ): Promise<void> {
    await changing(hostPath, async () => {
      await writeFileAtomic(this.path(hostPath), data, mode);
      if (owner !== undefined) await lchown(this.path(hostPath), owner.uid, owner.gid);
    });
  }

  async ensureDirectory(
    hostPath: string,
    mode: number,
    owner?: { uid: number; gid: number },
  ): Promise<'created' | 'exists'> {
    return changing(hostPath, async () => {
      const outcome = await ensureDirectory(this.path(hostPath), mode);
      if (outcome === 'created' && owner !== undefined)
        await chown(this.path(hostPath), owner.uid, owner.gid);
      return outcome;
    });
  }

  /** A second name for a file (a hard link: the same inode, whatever later replaces `from`). */
  async linkFile(fromHostPath: string, toHostPath: string): Promise<void> {
    await changing(toHostPath, () => link(this.path(fromHostPath), this.path(toHostPath)));
  }

  /** Renames within one file system (atomic: a reader sees the old file or the new one). */
  async renameFile(fromHostPath: string, toHostPath: string): Promise<void> {
    await changing(toHostPath, () => rename(this.path(fromHostPath), this.path(toHostPath)));
  }

  /** Unlinks a file (or a symlink itself), never a tree: false when it was not there. */
  async unlinkFile(hostPath: string): Promise<boolean> {
    try {
      await changing(hostPath, () => unlink(this.path(hostPath)));
      return true;
    } catch (error) {
      if (isCode(error, 'ENOENT')) return false;
      throw error;
    }
  }

  /** Removes a directory only when it is empty (never recursively: #10's `..` removed a whole
   *  /usr/local/lib that way). */
  /** The names in a directory; undefined when there is none there. */
  async listDirectory(hostPath: string): Promise<string[] | undefined> {
    try {
      return await readdir(this.path(hostPath));
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return undefined;
      throw error;
    }
  }

  async removeEmptyDirectory(hostPath: string): Promise<'removed' | 'absent' | 'not empty'> {
    try {
      await changing(hostPath, () => rmdir(this.path(hostPath)));
      return 'removed';
    } catch (error) {
      if (isCode(error, 'ENOENT')) return 'absent';
      if (isCode(error, 'ENOTEMPTY') || isCode(error, 'EEXIST')) return 'not empty';
      throw error;
    }
  }

  /** Reads a file of the node account's (its state): not through a link at the last component,
   *  and only a regular file that `uid` owns with one link. A link higher up the path, which
   *  the account can plant, can then lead only to a file the account could read anyway.
   *  O_NONBLOCK: a FIFO planted in its place must not hang root (holding the installer lock)
   *  in open(); a file larger than any of ours is not read. */
  async readOwnedBy(hostPath: string, uid: number): Promise<Buffer | undefined> {
    let handle;
    try {
      const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
      handle = await open(this.path(hostPath), flags | constants.O_NOCTTY);
    } catch (error) {
      if (isAbsent(error) || isCode(error, 'ELOOP')) return undefined;
      throw error;
    }
    try {
      const st = await handle.stat();
      if (!st.isFile() || st.uid !== uid || st.nlink !== 1) return undefined;
      if (st.size > NODE_FILE_MAX_BYTES) return undefined;
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /** Sets a root-made directory's owner and mode (drift repaired), without following a link. */
  async setDirectoryOwnerAndMode(
    hostPath: string,
    mode: number,
    owner: { uid: number; gid: number },
  ): Promise<void> {
    const handle = await open(
      this.path(hostPath),
      constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
    );
    try {
      await handle.chown(owner.uid, owner.gid);
      await handle.chmod(mode);
    } finally {
      await handle.close();
    }
  }

  /**
   * A small regular file, opened without following a link and without blocking (a FIFO in its
   * place would hang the reader), read only if it is a regular file of at most `maxBytes`.
   */
  async readSmallFile(hostPath: string, maxBytes: number): Promise<SmallFile> {
    const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    let handle;
    try {
      handle = await open(this.path(hostPath), flags);
    } catch (error) {
      if (isAbsent(error)) return { kind: 'absent' };
      if (isCode(error, 'ELOOP')) return { kind: 'link' };
      throw error;
    }
    try {
      const found = await handle.stat();
      if (!found.isFile()) return { kind: 'not-regular' };
      if (found.size > maxBytes) return { kind: 'too-large' };
      return { kind: 'file', bytes: await handle.readFile() };
    } finally {
      await handle.close();
    }
  }

  /** Reads a file without following a symlink at its last component (SEC-02). */
  async readNoFollow(hostPath: string): Promise<Buffer | undefined> {
    let handle;
    try {
      handle = await open(this.path(hostPath), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }
}

export type SmallFile =
  { kind: 'file'; bytes: Buffer } | { kind: 'absent' | 'link' | 'not-regular' | 'too-large' };
