// Work inside the node's own trees runs as the node account, in its own session (HOST-08):
// root never walks or deletes within a tree that oac-node can write (SEC-02), where a process
// of that account could swap a directory for a link between root's reads and its unlinks.
import type { Host } from '../../host/host.ts';
import { NODE_UID } from '../../layout.ts';

export async function runAsNode(host: Host, argv: string[]): Promise<{ ok: boolean; why: string }> {
  const ids = ['--reuid', String(NODE_UID), '--regid', String(NODE_UID), '--clear-groups'];
  const r = await host.run('setpriv', [...ids, '--', ...argv], { newSession: true });
  return { ok: r.exitCode === 0, why: r.stderr.split('\n')[0] ?? '' };
}

export async function mustRunAsNode(host: Host, argv: string[]): Promise<void> {
  const r = await runAsNode(host, argv);
  if (!r.ok) throw new Error(`${argv.join(' ')} as oac-node failed: ${r.why}`);
}
