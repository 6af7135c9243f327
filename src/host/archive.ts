// Unpacking a verified .tar.gz (the Runtime image, for microsandbox's store). GNU tar from the
// host's base system does the work: it already refuses members that climb out with `..` and
// strips leading `/`. It runs as whoever calls it (oac-node, in `_prepare`), and owners and
// modes from the archive are ignored.
import { rename, rm } from 'node:fs/promises';
import { ensureDirectory } from './files.ts';

/** Unpacks `archive` into `dest` (which must not exist) through a sibling temporary directory,
 *  so `dest` appears whole or not at all. */
export async function unpackTarGz(archive: string, dest: string): Promise<void> {
  const temporary = `${dest}.unpacking`;
  await rm(temporary, { recursive: true, force: true });
  await ensureDirectory(temporary, 0o700);
  const { execa } = await import('execa');
  await execa(
    'tar',
    [
      '--extract',
      '--gzip',
      `--file=${archive}`,
      `--directory=${temporary}`,
      '--no-same-owner',
      '--no-same-permissions',
      '--delay-directory-restore',
    ],
    // From /: the caller's directory may be one this account cannot enter (spawn fails EACCES).
    {
      cwd: '/',
      stdin: 'ignore',
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LC_ALL: 'C' },
      extendEnv: false,
    },
  );
  await rename(temporary, dest);
}

/** Removes a directory tree (a store entry this process owns). */
export async function removeTree(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}
