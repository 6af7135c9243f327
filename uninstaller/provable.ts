// Uninstall on a host whose record (the journal) is gone: only what can be proved to be this
// installation's is taken as ours (issue #5): the unit that runs this installation's program,
// its proxy settings and program (and the program's directories, removed only when empty), the
// node state holding this installation's identity, and the Docker network carrying its label.
// Each proof is its driver's probe. The account, its home, its groups and a microsandbox store
// cannot be told apart from ones that were there before, so they are kept, and the summary
// says so.
import type { Journal } from '../records/journal.ts';
import { KEYS, resourceShape } from '../src/engine/desired.ts';
import { accountDriver } from '../src/engine/drivers/account.ts';
import { directoryDriver } from '../src/engine/drivers/directory.ts';
import type { DriverContext } from '../src/engine/driver.ts';
import { networkDriver } from '../src/engine/drivers/network.ts';
import { fileDriver } from '../src/engine/drivers/file.ts';
import { unitDriver } from '../src/engine/drivers/unit.ts';
import { readNodeIdentity } from '../src/engine/node-state.ts';
import { nameOf, type Resource } from '../src/engine/resources.ts';
import { unitRunsProgram } from '../src/engine/unit-file.ts';
import type { Host } from '../src/host/host.ts';
import type { Layout } from '../src/layout.ts';

async function isProvablyOurs(r: Resource, ctx: DriverContext): Promise<boolean> {
  const { layout } = ctx;
  switch (r.kind) {
    case 'unit': {
      const found = await unitDriver.probe(r, ctx);
      return found.text !== undefined && unitRunsProgram(found.text, layout);
    }
    case 'service':
      return isProvablyOurs({ ...r, kind: 'unit', path: layout.unitPath }, ctx);
    case 'file':
      return (await fileDriver.probe(r, ctx)).exists;
    case 'network':
      return (await networkDriver.probe(r, ctx)).labelled;
    case 'directory':
      if (r.path === layout.stateDir)
        return (
          (await readNodeIdentity(ctx.host, layout).catch(() => undefined))?.installation_id ===
          layout.id
        );
      // The program's directories, when the program is there; removed only once empty.
      return (
        layout.program.startsWith(`${r.path}/`) &&
        (await ctx.host.lstat(layout.program)) !== undefined
      );
    default:
      return false;
  }
}

/** Holds what is provably ours in the run's journal; returns the lines for what is kept. */
export async function provableOwnership(
  host: Host,
  layout: Layout,
  journal: Journal,
): Promise<string[]> {
  const ctx: DriverContext = { host, layout, journal, emit: () => undefined };
  const shape = resourceShape(layout, { provider: undefined, group: undefined });
  for (const r of shape) {
    if (r.kind === 'node' || !(await isProvablyOurs(r, ctx))) continue;
    journal.remember(r.key, {
      kind: r.kind,
      name: nameOf(r),
      ownership: 'owned',
      props: { proved: true },
    });
  }
  // The account or its home still there: say why they stay (their drivers' probes tell).
  const account = shape.find((r) => r.key === KEYS.account);
  const home = shape.find((r) => r.key === KEYS.home);
  const found =
    (account?.kind === 'account' &&
      accountDriver.exists(await accountDriver.probe(account, ctx))) ||
    (home?.kind === 'directory' && directoryDriver.exists(await directoryDriver.probe(home, ctx)));
  if (!found) return [];
  return [
    `no record of installation ${layout.id} was found, so only its provable resources were removed; the account oac-node, its home, its group memberships and any microsandbox store are kept: remove them yourself if nothing else uses them (sudo userdel -r oac-node)`,
  ];
}
