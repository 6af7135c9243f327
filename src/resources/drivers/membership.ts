// HOST-02: the node account in the group that owns the Docker socket (docker) or /dev/kvm
// (kvm). A membership through the account's primary group counts as one, for install and
// status alike (they once disagreed).
import { z } from 'zod';
import { addToGroup, readGroups, readPasswd, removeFromGroup } from '../../host/accounts.ts';
import type { Driver } from '../driver.ts';
import { defineKind } from '../kind.ts';
import { MEMBERSHIP_RESOURCE } from '../resources.ts';

export const MEMBERSHIP_ACTUAL = z.strictObject({
  member: z.boolean(),
  /** Listed in the group's member list (what uninstall can take back). */
  listed: z.boolean(),
});
export type MembershipActual = z.infer<typeof MEMBERSHIP_ACTUAL>;

export const membershipDriver: Driver<'membership', MembershipActual> = {
  async probe(r, { host }) {
    const entry = (await readGroups(host)).find((g) => g.name === r.group);
    const user = (await readPasswd(host)).find((u) => u.name === r.user);
    const listed = entry?.members.includes(r.user) ?? false;
    const primary = entry !== undefined && user !== undefined && user.gid === entry.gid;
    return { member: listed || primary, listed };
  },
  exists: (a) => a.member,
  diff: (r, { member }) =>
    member
      ? { kind: 'unchanged', detail: `${r.user} in group ${r.group}` }
      : {
          kind: 'create',
          detail: `add ${r.user} to group ${r.group}`,
          why: `${r.user} is no longer in group ${r.group}`,
        },
  async apply(r, _action, _actual, { host }) {
    await addToGroup(host, r.user, r.group);
    return { outcome: 'created', detail: `${r.user} in group ${r.group}` };
  },
  async remove(r, { listed }, { host }) {
    if (!listed) return { outcome: 'skipped', detail: `${r.user} not listed in ${r.group}` };
    await removeFromGroup(host, r.user, r.group);
    return { outcome: 'removed', detail: `${r.user} from ${r.group}` };
  },
};

/** A group membership as a kind (src/resources/kind.ts). */
export const membershipKind = defineKind({
  kind: 'membership',
  desired: MEMBERSHIP_RESOURCE,
  recorded: true,
  driver: membershipDriver,
  actual: MEMBERSHIP_ACTUAL,
  name: (r) => `${r.user} in ${r.group}`,
  removal: (r) => `remove ${r.user} from group ${r.group}`,
});
