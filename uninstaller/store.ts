// UNI-05: microsandbox's store /var/lib/oac-node/.oac/m/ (images, sandboxes, node-local
// checkpoints) goes only once Core confirmed the node's removal; microVMs may still use it
// otherwise. Under --force it is kept, with the command that deletes it, and so are the home and
// the account that own it: a rerun after that deletion finishes removing them.
import { STORE_DIR } from '../installer/context.ts';
import type { Step } from '../src/engine/step.ts';
import { runAsNode } from './as-node.ts';
import { owned, type UninstallContext } from './context.ts';

/** Whether the store stays this run (it exists, is ours, and Core did not confirm removal). */
export async function storeStays(ctx: UninstallContext): Promise<boolean> {
  return (
    !ctx.coreConfirmed && owned(ctx, 'store') && (await ctx.host.lstat(STORE_DIR)) !== undefined
  );
}

export function storeDeleteHint(ctx: UninstallContext): string {
  return `the microsandbox store ${STORE_DIR}: microVMs may still use it; check sudo pgrep -u oac-node, then run sudo -u oac-node rm -rf ${ctx.host.path(STORE_DIR)} and the uninstall command again to remove the account`;
}

export const storeStep: Step<UninstallContext, 'absent' | 'remove' | 'keep'> = {
  id: 'store',
  title: 'microsandbox store',
  async probe(ctx) {
    if (!owned(ctx, 'store') || (await ctx.host.lstat(STORE_DIR)) === undefined) return 'absent';
    return ctx.coreConfirmed ? 'remove' : 'keep';
  },
  plan(ctx, found) {
    if (found === 'absent') return { kind: 'skip', detail: 'no microsandbox store of ours' };
    if (found === 'keep') return { kind: 'keep', detail: storeDeleteHint(ctx) };
    return { kind: 'remove', detail: `remove ${STORE_DIR}` };
  },
  async apply(ctx) {
    // As the node account: root never walks a tree oac-node can write (SEC-02).
    await runAsNode(ctx.host, ['rm', '-rf', '--', ctx.host.path(STORE_DIR)]);
    await ctx.journal.forget('store');
    return { outcome: 'removed', detail: STORE_DIR };
  },
};
