// Removal inside the node's own trees runs as the node account, in its own session (HOST-08):
// root never walks a tree that oac-node can write (SEC-02).
import { NODE_UID } from '../installer/context.ts';
import type { Host } from '../src/host/host.ts';

export async function runAsNode(host: Host, argv: string[]): Promise<void> {
  const ids = ['--reuid', String(NODE_UID), '--regid', String(NODE_UID), '--clear-groups'];
  const r = await host.run('setpriv', [...ids, '--', ...argv], { newSession: true });
  if (r.exitCode !== 0)
    throw new Error(`${argv.join(' ')} as oac-node failed: ${r.stderr.split('\n')[0] ?? ''}`);
}
