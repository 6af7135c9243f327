// HOST-01: the system user oac-node, UID 65532, home /var/lib/oac-node, no login shell. An
// existing account exactly like that is adopted; any other account named oac-node, or another
// account holding UID 65532, stops the run before anything changes.
import { OacError } from '../src/errors.ts';
import { hint, message } from '../src/messages.ts';
import { addSystemUser, readPasswd, type PasswdEntry } from '../src/host/accounts.ts';
import type { Step } from '../src/engine/step.ts';
import { NODE_HOME, NODE_UID, NODE_USER, NOLOGIN, type InstallContext } from './context.ts';

interface Actual {
  byName: PasswdEntry | undefined;
  byUid: PasswdEntry | undefined;
  recorded: 'intended' | 'owned' | 'adopted' | undefined;
}

const ID = 'account:oac-node';

export const accountStep: Step<InstallContext, Actual> = {
  id: 'account',
  title: `Service account ${NODE_USER}`,
  async probe(ctx) {
    const users = await readPasswd(ctx.host);
    const byName = users.find((u) => u.name === NODE_USER);
    const byUid = users.find((u) => u.uid === NODE_UID);
    if (byName !== undefined) ctx.nodeIds = { uid: byName.uid, gid: byName.gid };
    return { byName, byUid, recorded: ctx.journal.get(ID)?.ownership };
  },
  plan(_ctx, { byName, byUid, recorded }) {
    if (byName === undefined) {
      if (byUid !== undefined) {
        throw new OacError('uid_taken', message('uid_taken', { user: byUid.name, uid: NODE_UID }), {
          hint: hint('uid_taken'),
        });
      }
      return {
        kind: 'create',
        detail: `create system user ${NODE_USER} (UID ${NODE_UID}, home ${NODE_HOME}, no login shell)`,
      };
    }
    if (!isOurShape(byName)) {
      const values = { user: NODE_USER, uid: byName.uid, home: byName.home, shell: byName.shell };
      throw new OacError('account_foreign', message('account_foreign', values), {
        hint: hint('account_foreign'),
      });
    }
    if (recorded === undefined)
      return { kind: 'adopt', detail: `adopt existing user ${NODE_USER}` };
    // Intended but not confirmed: a run killed right after useradd. The account is ours.
    if (recorded === 'intended')
      return { kind: 'update', detail: `record user ${NODE_USER} as created` };
    return { kind: 'unchanged', detail: `user ${NODE_USER}` };
  },
  async apply(ctx, action) {
    if (action.kind === 'update') {
      await ctx.journal.record(ID, {
        kind: 'account',
        name: NODE_USER,
        ownership: 'owned',
        detail: {},
      });
      return { outcome: 'unchanged', detail: `user ${NODE_USER}` };
    }
    if (action.kind === 'adopt') {
      await ctx.journal.record(ID, {
        kind: 'account',
        name: NODE_USER,
        ownership: 'adopted',
        detail: {},
      });
      return { outcome: 'adopted', detail: `user ${NODE_USER}` };
    }
    await ctx.journal.intend(ID, 'account', NODE_USER);
    await addSystemUser(ctx.host, {
      name: NODE_USER,
      uid: NODE_UID,
      home: NODE_HOME,
      shell: NOLOGIN,
    });
    const created = (await readPasswd(ctx.host)).find((u) => u.name === NODE_USER);
    if (created === undefined)
      throw new Error(`useradd reported success but ${NODE_USER} is absent`);
    ctx.nodeIds = { uid: created.uid, gid: created.gid };
    await ctx.journal.record(ID, {
      kind: 'account',
      name: NODE_USER,
      ownership: 'owned',
      detail: {},
    });
    return { outcome: 'created', detail: `user ${NODE_USER} (UID ${NODE_UID})` };
  },
};

function isOurShape(user: PasswdEntry): boolean {
  return user.uid === NODE_UID && user.home === NODE_HOME && /\/(nologin|false)$/.test(user.shell);
}
