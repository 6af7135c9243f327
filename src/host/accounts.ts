// Accounts and groups, read from the host's own files (so --root reads the scratch tree, as
// useradd --prefix writes it) and changed only with the distribution's tools.
import type { Host } from './host.ts';
import { oacError } from '../messages.ts';

export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

export interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
}

export async function readPasswd(host: Host): Promise<PasswdEntry[]> {
  const text = (await host.readFile('/etc/passwd'))?.toString('utf8') ?? '';
  return rows(text).map(([name = '', , uid = '', gid = '', , home = '', shell = '']) => ({
    name,
    uid: Number(uid),
    gid: Number(gid),
    home,
    shell,
  }));
}

export async function readGroups(host: Host): Promise<GroupEntry[]> {
  const text = (await host.readFile('/etc/group'))?.toString('utf8') ?? '';
  return rows(text).map(([name = '', , gid = '', members = '']) => ({
    name,
    gid: Number(gid),
    members: members === '' ? [] : members.split(','),
  }));
}

function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'));
}

function prefix(host: Host): string[] {
  return host.prefixed ? ['--prefix', host.root] : [];
}

export interface NewSystemUser {
  name: string;
  uid: number;
  home: string;
  shell: string;
}

export async function addSystemUser(host: Host, user: NewSystemUser): Promise<void> {
  // --user-group: a private group of the same name; no home created here (root creates it
  // with its final owner and mode, and no skeleton files).
  const args = [...prefix(host), '--system', '--uid', String(user.uid), '--user-group'];
  args.push('--home-dir', user.home, '--no-create-home', '--shell', user.shell, user.name);
  await must(host, 'useradd', args);
}

export async function deleteUser(host: Host, name: string): Promise<void> {
  await must(host, 'userdel', [...prefix(host), name]);
}

export async function addToGroup(host: Host, user: string, group: string): Promise<void> {
  await must(host, 'usermod', [...prefix(host), '--append', '--groups', group, user]);
}

export async function removeFromGroup(host: Host, user: string, group: string): Promise<void> {
  // gpasswd has no --prefix; -Q (chroot-less root) does the same (docs/e2e-hosts.md).
  const args = host.prefixed ? ['-Q', host.root, '-d', user, group] : ['-d', user, group];
  await must(host, 'gpasswd', args);
}

/** An account tool that fails is an operational failure with its own line (issue #38: it was
 *  an internal error with a stack): the tool's first line of stderr says why. */
async function must(host: Host, command: string, args: string[]): Promise<void> {
  const r = await host.run(command, args);
  if (r.exitCode !== 0) {
    const reason = (r.stderr.split('\n')[0] ?? '').trim().slice(0, 300) || 'it printed nothing';
    throw oacError('account_tool_failed', { command, status: r.exitCode ?? 'none', reason });
  }
}
