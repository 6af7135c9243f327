// The node account (HOST-01): created with the distribution's useradd; an existing account of
// exactly that shape is adopted (the reconciler records it so); any other account named
// oac-node, or another account holding the UID, stops the run before anything changes.
import { z } from 'zod';
import { addSystemUser, deleteUser, readPasswd, type PasswdEntry } from '../../host/accounts.ts';
import { oacError } from '../../messages.ts';
import type { Driver } from '../driver.ts';
import type { AccountResource } from '../resources.ts';
import { ACCOUNT_RESOURCE } from '../resources.ts';
import { refuse } from '../../core/step.ts';
import { defineKind } from '../kind.ts';

const PASSWD_ENTRY = z.strictObject({
  name: z.string(),
  uid: z.number().int(),
  gid: z.number().int(),
  home: z.string(),
  shell: z.string(),
});

/** What the probe finds: the passwd entries with the account's name and with its UID. */
export const ACCOUNT_ACTUAL = z.strictObject({
  byName: PASSWD_ENTRY.optional(),
  byUid: PASSWD_ENTRY.optional(),
});
export type AccountActual = z.infer<typeof ACCOUNT_ACTUAL>;

export const accountDriver: Driver<'account', AccountActual> = {
  async probe(r, { host }) {
    const users = await readPasswd(host);
    return {
      byName: users.find((u) => u.name === r.name),
      byUid: users.find((u) => u.uid === r.uid),
    };
  },
  exists: (a) => a.byName !== undefined,
  diff(r, { byName, byUid }) {
    if (byName === undefined) {
      if (byUid !== undefined)
        return refuse(oacError('uid_taken', { user: byUid.name, uid: r.uid }));
      return {
        kind: 'create',
        detail: `create system user ${r.name} (UID ${r.uid}, home ${r.home}, no login shell)`,
      };
    }
    if (!hasShape(byName, r)) {
      const values = { user: r.name, uid: byName.uid, home: byName.home, shell: byName.shell };
      return refuse(oacError('account_foreign', values));
    }
    return { kind: 'unchanged', detail: `user ${r.name}` };
  },
  async apply(r, _action, _actual, { host }) {
    await addSystemUser(host, { name: r.name, uid: r.uid, home: r.home, shell: r.shell });
    return { outcome: 'created', detail: `user ${r.name} (UID ${r.uid})` };
  },
  async remove(r, _actual, { host }) {
    await deleteUser(host, r.name);
    return { outcome: 'removed', detail: `user ${r.name}` };
  },
};

function hasShape(user: PasswdEntry, r: AccountResource): boolean {
  return user.uid === r.uid && user.home === r.home && /\/(nologin|false)$/.test(user.shell);
}

/** The node account as a kind (src/resources/kind.ts). */
export const accountKind = defineKind({
  kind: 'account',
  desired: ACCOUNT_RESOURCE,
  recorded: true,
  driver: accountDriver,
  actual: ACCOUNT_ACTUAL,
  name: (r) => r.name,
  label: (r) => `user ${r.name}`,
  removal: (r) => `delete user ${r.name}`,
  // What a kept resource needs of an account is its ownership; a rerun finishes the removal.
  keptFor: (what) => `it owns ${what}; rerun to finish`,
});
