// UNI-05: microsandbox's store /var/lib/oac-node/.oac/m/ (images, sandboxes, node-local
// checkpoints) goes only once Core confirmed the node's removal; microVMs may still use it
// otherwise. Under --force it is kept, with the command that deletes it, and so are the home and
// the account that own it: a rerun after that deletion finishes removing them.
import { NODE_DIRS, STORE_DIR } from '../installer/context.ts';
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

/** `.oac/nodes` and `.oac` under the home, when the installer made them, once they are empty
 *  (an adopted home keeps its own files; a created home goes anyway). */
export const nodeDirsStep: Step<UninstallContext, string[]> = {
  id: 'node-dirs',
  title: 'Node directories',
  async probe(ctx) {
    const found: string[] = [];
    for (const [key, path] of [...NODE_DIRS].reverse()) {
      if (owned(ctx, key) && (await ctx.host.lstat(path)) !== undefined) found.push(key);
    }
    return found;
  },
  plan: (ctx, keys) =>
    keys.length === 0
      ? { kind: 'skip', detail: 'no node directories of ours' }
      : {
          kind: 'remove',
          detail: `remove ${keys.map((k) => ctx.journal.get(k)?.name).join(', ')} when empty`,
        },
  async apply(ctx, _action, keys) {
    const removed: string[] = [];
    for (const key of keys) {
      const path = ctx.journal.get(key)?.name ?? '';
      // rmdir as the node account: it refuses a directory that still holds anything.
      const emptied = await runAsNode(ctx.host, ['rmdir', '--', ctx.host.path(path)]).then(
        () => true,
        () => false,
      );
      if (!emptied) break;
      removed.push(path);
      await ctx.journal.forget(key);
    }
    return removed.length === 0
      ? { outcome: 'kept', detail: 'node directories (not empty)' }
      : { outcome: 'removed', detail: removed.join(', ') };
  },
};
