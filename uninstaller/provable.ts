// Uninstall on a host whose record (/etc/oac-node/<id>.json) is gone: only what can be proved to
// be this installation's node is removed (issue #5: "removes only what it can prove is ours"):
// the unit that runs this installation's program, its proxy settings, the program, the node
// state holding this installation's identity, and the Docker network named for it. The account,
// its home, its groups and a microsandbox store cannot be told apart from ones that were there
// before, so they are kept, and the summary says so.
import { NODE_HOME, NODE_USER, envFilePath, stateDir, unitPath } from '../installer/context.ts';
import { readPasswd } from '../src/host/accounts.ts';
import { programPath } from '../installer/program.ts';
import { readNodeIdentity } from '../installer/wait-ready.ts';
import type { Journal, JournalResource } from '../records/journal.ts';
import type { Host } from '../src/host/host.ts';

type Proof = [key: string, kind: JournalResource['kind'], name: string];

async function proofs(host: Host, id: string): Promise<Proof[]> {
  const found: Proof[] = [];
  const unit = (await host.readFile(unitPath(id)))?.toString('utf8');
  if (unit?.includes(`\nExecStart=${programPath(id)} run `) === true)
    found.push(['unit', 'unit', unitPath(id)]);
  if ((await host.lstat(envFilePath(id))) !== undefined)
    found.push(['proxy-settings', 'file', envFilePath(id)]);
  if ((await host.lstat(programPath(id))) !== undefined)
    found.push(['program', 'file', programPath(id)]);
  const identity = await readNodeIdentity(host, id).catch(() => undefined);
  if (identity?.installation_id === id) found.push(['state', 'directory', stateDir(id)]);
  // Named for this installation ID; created by no one else.
  found.push(['network', 'docker-network', `oac-node-${id}`]);
  return found;
}

/** Holds what is provably ours in the run's journal; returns the lines for what is kept. */
export async function adoptProvable(host: Host, id: string, journal: Journal): Promise<string[]> {
  for (const [key, kind, name] of await proofs(host, id))
    journal.remember(key, { kind, name, ownership: 'owned', detail: { proved: true } });
  const account = (await readPasswd(host)).some((u) => u.name === NODE_USER);
  if (!account && (await host.lstat(NODE_HOME)) === undefined) return [];
  return [
    `no record of installation ${id} was found, so only its provable resources were removed; the account oac-node, its home, its group memberships and any microsandbox store are kept: remove them yourself if nothing else uses them (sudo userdel -r oac-node)`,
  ];
}
