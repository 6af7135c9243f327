// A scratch host tree for --root tests (docs/design.md "Tests, in tiers"): the machine's account files
// copied in, a docker group as Docker's package makes it, and a bystander under
// /usr/local/lib that no command may touch. Real useradd/usermod --prefix and systemctl --root
// work on it; the machine's own users, groups and units are never touched.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function makeScratchRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'oac-root-'));
  // Like a real /: the node account works inside its home as itself, so it must reach it.
  chmodSync(root, 0o755);
  // As on a booted Debian: other units are enabled already, and /run/lock exists.
  mkdirSync(join(root, 'etc/systemd/system/multi-user.target.wants'), { recursive: true });
  symlinkSync(
    '/lib/systemd/system/cron.service',
    join(root, 'etc/systemd/system/multi-user.target.wants/cron.service'),
  );
  mkdirSync(join(root, 'run/lock'), { recursive: true });
  mkdirSync(join(root, 'var/lib'), { recursive: true });
  mkdirSync(join(root, 'var/log'), { recursive: true });
  mkdirSync(join(root, 'usr/local/lib/python3/dist-packages'), { recursive: true });
  // Debian's base-files makes it; the installer puts `oac-node` on PATH there (issue #25).
  mkdirSync(join(root, 'usr/local/sbin'), { recursive: true, mode: 0o755 });
  // base-files makes it too; the installer puts its manual page in man1 below it (issue #39).
  mkdirSync(join(root, 'usr/local/share/man'), { recursive: true, mode: 0o755 });
  writeFileSync(join(root, 'usr/local/lib/python3/dist-packages/bystander.py'), 'print(1)\n');
  for (const file of ['passwd', 'group', 'shadow', 'gshadow', 'login.defs'])
    copyFileSync(`/etc/${file}`, join(root, 'etc', file));
  const groups = readFileSync(join(root, 'etc/group'), 'utf8');
  if (!/^docker:/m.test(groups)) execFileSync('groupadd', ['--prefix', root, '--system', 'docker']);
  return root;
}

/** Removes a scratch tree and the node program test/helpers/root-half.ts writes beside it (both
 *  in the machine's temporary directory: a test leaves neither behind). */
export function removeScratchRoot(root: string): void {
  rmSync(root, { recursive: true, force: true });
  rmSync(`${root}-program`, { force: true });
}

export function dockerGid(root: string): number {
  const found = /^docker:[^:]*:(\d+):/m.exec(readFileSync(join(root, 'etc/group'), 'utf8'));
  return Number(found?.[1]);
}

/** Every path under root: type, mode, owner, and a file's SHA-256 or a link's target. */
export function treeOf(root: string, ignore: RegExp = /^$/): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (ignore.test(path)) continue;
      const st = lstatSync(join(root, path));
      const meta = `${(st.mode & 0o7777).toString(8).padStart(4, '0')} ${st.uid}:${st.gid}`;
      if (st.isDirectory()) {
        out[path] = `dir ${meta}`;
        walk(path);
      } else if (st.isSymbolicLink()) out[path] = `link ${readlinkSync(join(root, path))}`;
      else
        out[path] = `file ${meta} ${createHash('sha256')
          .update(readFileSync(join(root, path)))
          .digest('hex')
          .slice(0, 12)}`;
    }
  };
  walk('');
  return out;
}

/** What changed between two trees: added, removed and changed paths, sorted. */
export function treeDiff(before: Record<string, string>, after: Record<string, string>) {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return {
    added: paths.filter((p) => before[p] === undefined),
    removed: paths.filter((p) => after[p] === undefined),
    changed: paths.filter(
      (p) => before[p] !== undefined && after[p] !== undefined && before[p] !== after[p],
    ),
  };
}
