// HOST-02: the node's account joins the group that owns the Docker socket (docker) or /dev/kvm
// (kvm), and nothing else. Membership we add is recorded, so uninstall removes only that.
import { addToGroup, readGroups, readPasswd } from '../src/host/accounts.ts';
import type { Step } from '../src/engine/step.ts';
import { NODE_USER, type InstallContext } from './context.ts';

interface Actual {
  group: string;
  member: boolean;
}

export const groupStep: Step<InstallContext, Actual> = {
  id: 'group',
  title: 'Provider group',
  async probe(ctx) {
    const group = ctx.providerGroup;
    if (group === undefined) throw new Error('the provider group is known after preflight');
    const groups = await readGroups(ctx.host);
    const user = (await readPasswd(ctx.host)).find((u) => u.name === NODE_USER);
    const entry = groups.find((g) => g.name === group.name);
    const member =
      (entry?.members.includes(NODE_USER) ?? false) ||
      (user !== undefined && user.gid === entry?.gid);
    return { group: group.name, member };
  },
  plan(ctx, { group, member }) {
    const id = `group-membership:${group}`;
    if (!member) return { kind: 'create', detail: `add ${NODE_USER} to group ${group}` };
    if (ctx.journal.get(id)?.ownership === 'intended')
      return { kind: 'update', detail: `record ${NODE_USER} in group ${group} as added` };
    return { kind: 'unchanged', detail: `${NODE_USER} in group ${group}` };
  },
  async apply(ctx, action, { group }) {
    const id = `group-membership:${group}`;
    if (action.kind === 'create') {
      await ctx.journal.intend(id, 'group-membership', group);
      await addToGroup(ctx.host, NODE_USER, group);
    }
    // A membership the account already had (an adopted account) is not ours to remove.
    const ownership =
      action.kind === 'create' || ctx.journal.get(id)?.ownership === 'intended'
        ? 'owned'
        : 'adopted';
    await ctx.journal.record(id, {
      kind: 'group-membership',
      name: group,
      ownership,
      detail: { user: NODE_USER },
    });
    return {
      outcome: action.kind === 'create' ? 'created' : 'unchanged',
      detail: `${NODE_USER} in group ${group}`,
    };
  },
};
