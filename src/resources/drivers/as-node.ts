// Work inside the node's own trees runs as the node account, in its own session (HOST-08):
// root never walks or deletes within a tree that oac-node can write (SEC-02), where a process
// of that account could swap a directory for a link between root's reads and its unlinks.
import type { Host } from '../../host/host.ts';
import { readPasswd } from '../../host/accounts.ts';
import { NODE_UID, NODE_USER } from '../../layout.ts';

/** setpriv's flags that leave a child of root nothing to gain (SEC-08): no_new_privs (a setuid
 *  or file-capability executable cannot raise it again) and empty inheritable, ambient and
 *  bounding sets, on top of the empty permitted and effective sets a non-root UID gets. */
export const NO_PRIVILEGES = ['--no-new-privs', '--inh-caps=-all', '--bounding-set=-all'];

export async function runAsNode(host: Host, argv: string[]): Promise<{ ok: boolean; why: string }> {
  // The account's own primary group (an adopted account may have another than its UID).
  const user = (await readPasswd(host)).find((u) => u.name === NODE_USER);
  const gid = user?.gid ?? NODE_UID;
  const ids = ['--reuid', String(NODE_UID), '--regid', String(gid), '--clear-groups'];
  const r = await host.run('setpriv', [...ids, ...NO_PRIVILEGES, '--', ...argv], {
    newSession: true,
  });
  return { ok: r.exitCode === 0, why: r.stderr.split('\n')[0] ?? '' };
}
