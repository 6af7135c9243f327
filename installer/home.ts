// The node account's home, /var/lib/oac-node, made by root with its final owner and mode from
// the start (SEC-02); everything beneath it is made by oac-node itself (HOST-08).
import type { Step } from '../src/engine/step.ts';
import { NODE_HOME, NODE_USER, type InstallContext } from './context.ts';

const ID = 'directory:home';

export const homeStep: Step<InstallContext, { exists: boolean; uid?: number }> = {
  id: 'home',
  title: `Home ${NODE_HOME}`,
  async probe(ctx) {
    const stats = await ctx.host.lstat(NODE_HOME);
    return stats === undefined ? { exists: false } : { exists: true, uid: stats.uid };
  },
  plan(ctx, actual) {
    if (!actual.exists)
      return { kind: 'create', detail: `create ${NODE_HOME} (0750, owner ${NODE_USER})` };
    if (ctx.journal.get(ID) === undefined)
      return { kind: 'adopt', detail: `adopt existing ${NODE_HOME}` };
    return { kind: 'unchanged', detail: NODE_HOME };
  },
  async apply(ctx, action) {
    const ids = ctx.nodeIds;
    if (ids === undefined) throw new Error('the node account is known after the account step');
    if (action.kind === 'adopt') {
      await ctx.journal.record(ID, {
        kind: 'directory',
        name: NODE_HOME,
        ownership: 'adopted',
        detail: {},
      });
      return { outcome: 'adopted', detail: NODE_HOME };
    }
    await ctx.journal.intend(ID, 'directory', NODE_HOME);
    await ctx.host.ensureDirectory(NODE_HOME, 0o750, ids);
    await ctx.journal.record(ID, {
      kind: 'directory',
      name: NODE_HOME,
      ownership: 'owned',
      detail: {},
    });
    return { outcome: 'created', detail: NODE_HOME };
  },
};
