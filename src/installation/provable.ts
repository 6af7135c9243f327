// What can be proved to be this installation's without a record: the unit that runs this
// installation's program, its program and proxy settings (named for it, in root-only
// directories), the program's directories while the program is there, the node state holding
// this installation's identity, and the Docker network carrying its label. Each proof is its
// driver's probe. Uninstall without a journal removes exactly these (uninstaller/unrecorded.ts);
// a rerun that lost its journal records them as owned, not adopted, so that a later uninstall
// still removes them. The account, its home, its groups and a microsandbox store cannot be told
// apart from ones that were there before.
import type { DriverContext } from '../resources/driver.ts';
import type { Resource } from '../resources/resources.ts';
import { kindOf } from './kinds.ts';
import { readNodeIdentity } from './node-state.ts';

/** Each kind says how its resources are proved ours (src/resources/kind.ts); the installation
 *  adds what only it can read: whose identity the node state holds. */
export function isProvablyOurs(r: Resource, ctx: DriverContext): Promise<boolean> {
  const { host, layout } = ctx;
  const stateIsThisInstallation = async () => {
    const identity = await readNodeIdentity(host, layout).catch(() => undefined);
    return identity?.installation_id === layout.id;
  };
  return kindOf(r).provable(r, ctx, { stateIsThisInstallation });
}
