// What can be proved to be this installation's without a record: the unit that runs this
// installation's program, its program and proxy settings (named for it, in root-only
// directories), the program's directories while the program is there, the node state holding
// this installation's identity, and the Docker network carrying its label. Each proof is its
// driver's probe. Uninstall without a journal removes exactly these (uninstaller/provable.ts);
// a rerun that lost its journal records them as owned, not adopted, so that a later uninstall
// still removes them. The account, its home, its groups and a microsandbox store cannot be told
// apart from ones that were there before.
import type { DriverContext } from '../resources/driver.ts';
import { fileDriver } from '../resources/drivers/file.ts';
import { networkDriver } from '../resources/drivers/network.ts';
import { unitDriver } from '../resources/drivers/unit.ts';
import { readNodeIdentity } from './node-state.ts';
import type { Resource } from '../resources/resources.ts';
import { unitRunsProgram } from '../resources/unit-file.ts';

export async function isProvablyOurs(r: Resource, ctx: DriverContext): Promise<boolean> {
  const { layout } = ctx;
  switch (r.kind) {
    case 'unit': {
      const found = await unitDriver.probe(r, ctx);
      return found.text !== undefined && unitRunsProgram(found.text, layout);
    }
    case 'service':
      return isProvablyOurs({ ...r, kind: 'unit', path: layout.unitPath }, ctx);
    case 'file': {
      // A marked file (oac-node on PATH) is the installer's only while it holds its mark.
      const found = await fileDriver.probe(r, ctx);
      return found.exists && found.foreign !== true;
    }
    case 'network':
      return (await networkDriver.probe(r, ctx)).labelled;
    case 'directory':
      if (r.path === layout.stateDir) {
        const identity = await readNodeIdentity(ctx.host, layout).catch(() => undefined);
        return identity?.installation_id === layout.id;
      }
      return (
        layout.program.startsWith(`${r.path}/`) &&
        (await ctx.host.lstat(layout.program)) !== undefined
      );
    default:
      return false;
  }
}
