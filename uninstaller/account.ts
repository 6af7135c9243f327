// The account and what came with it (UNI-03): the group membership we added is removed; the
// home and the account only when we created them and no other installation's node remains. An
// adopted account keeps its home and its own groups, and the summary says so.
import { NODE_HOME, NODE_UID, NODE_USER } from '../installer/context.ts';
import type { Step } from '../src/engine/step.ts';
import { deleteUser, readGroups, readPasswd, removeFromGroup } from '../src/host/accounts.ts';
import { runAsNode } from './as-node.ts';
import { owned, type UninstallContext } from './context.ts';
import { storeStays } from './store.ts';

export const groupStep: Step<UninstallContext, string[]> = {
  id: 'group',
  title: 'Provider group',
  async probe(ctx) {
    const ours = ['docker', 'kvm'].filter((g) => owned(ctx, `group-membership:${g}`));
    const groups = await readGroups(ctx.host);
    return ours.filter(
      (g) => groups.find((e) => e.name === g)?.members.includes(NODE_USER) === true,
    );
  },
  plan: (_ctx, groups) =>
    groups.length > 0
      ? { kind: 'remove', detail: `remove ${NODE_USER} from ${groups.join(', ')}` }
      : { kind: 'skip', detail: 'no group membership of ours' },
  async apply(ctx, _action, groups) {
    for (const group of groups) {
      await removeFromGroup(ctx.host, NODE_USER, group);
      await ctx.journal.forget(`group-membership:${group}`);
    }
    return { outcome: 'removed', detail: `${NODE_USER} from ${groups.join(', ')}` };
  },
};

interface Found {
  exists: boolean;
  /** The microsandbox store stays (UNI-05 under --force): so do the home and the account. */
  storeStays: boolean;
}

export const homeStep: Step<UninstallContext, Found> = {
  id: 'home',
  title: `Home ${NODE_HOME}`,
  probe: async (ctx) => ({
    exists: (await ctx.host.lstat(NODE_HOME)) !== undefined,
    storeStays: await storeStays(ctx),
  }),
  plan(ctx, { exists, storeStays }) {
    if (!exists) return { kind: 'skip', detail: `${NODE_HOME} absent` };
    if (storeStays) return { kind: 'keep', detail: `${NODE_HOME} (it holds the kept store)` };
    if (!owned(ctx, 'directory:home'))
      return { kind: 'keep', detail: `${NODE_HOME} (${notOurs(ctx)})` };
    if (ctx.otherInstallations > 0)
      return { kind: 'keep', detail: `${NODE_HOME} (another installation's node remains)` };
    return { kind: 'remove', detail: `remove ${NODE_HOME}` };
  },
  async apply(ctx) {
    // Emptied as the node account first (its files are its own), then the directory itself.
    const path = ctx.host.path(NODE_HOME);
    await runAsNode(ctx.host, ['find', path, '-mindepth', '1', '-delete']);
    await ctx.host.remove(NODE_HOME);
    await ctx.journal.forget('directory:home');
    return { outcome: 'removed', detail: NODE_HOME };
  },
};

export const accountStep: Step<UninstallContext, Found> = {
  id: 'account',
  title: `Service account ${NODE_USER}`,
  probe: async (ctx) => ({
    exists: (await readPasswd(ctx.host)).some((u) => u.name === NODE_USER && u.uid === NODE_UID),
    storeStays: await storeStays(ctx),
  }),
  plan(ctx, { exists, storeStays }) {
    if (!exists) return { kind: 'skip', detail: `no user ${NODE_USER}` };
    if (storeStays)
      return {
        kind: 'keep',
        detail: `user ${NODE_USER} (it owns the kept store; rerun to finish)`,
      };
    if (!owned(ctx, 'account:oac-node'))
      return { kind: 'keep', detail: `user ${NODE_USER} (${notOurs(ctx)})` };
    if (ctx.otherInstallations > 0)
      return { kind: 'keep', detail: `user ${NODE_USER} (another installation's node remains)` };
    return { kind: 'remove', detail: `delete user ${NODE_USER}` };
  },
  async apply(ctx) {
    await deleteUser(ctx.host, NODE_USER);
    await ctx.journal.forget('account:oac-node');
    return { outcome: 'removed', detail: `user ${NODE_USER}` };
  },
};

function notOurs(ctx: UninstallContext): string {
  return ctx.recordMissing
    ? 'no record shows the installer created it'
    : 'adopted: it was there before the installer';
}
