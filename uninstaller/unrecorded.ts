// Uninstall on a host whose record (the journal) is gone: only what can be proved to be this
// installation's is taken as ours (src/installation/provable.ts), and the account and its home, which
// cannot be told apart from ones that were there before, are kept with a line saying so.
import { unrecordedShape } from '../src/installation/recorded.ts';
import type { Journal } from '../records/journal.ts';
import { KEYS } from '../src/installation/desired.ts';
import type { DriverContext } from '../src/resources/driver.ts';
import { isProvablyOurs } from '../src/installation/provable.ts';
import { isOnHost, isRecorded, nameOf } from '../src/installation/kinds.ts';
import type { Host } from '../src/host/host.ts';
import { NODE_USER, type Layout } from '../src/layout.ts';

/** Holds what is provably ours in the run's journal; returns the lines for what is kept. */
export async function provableOwnership(
  host: Host,
  layout: Layout,
  journal: Journal,
): Promise<string[]> {
  const ctx: DriverContext = { host, layout, journal, emit: () => undefined };
  const shape = unrecordedShape(layout);
  for (const r of shape) {
    if (!isRecorded(r) || !(await isProvablyOurs(r, ctx))) continue;
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
    (account !== undefined && (await isOnHost(account, ctx))) ||
    (home !== undefined && (await isOnHost(home, ctx)));
  if (!found) return [];
  return [
    `no record of installation ${layout.id} was found, so only its provable resources were removed; the account ${NODE_USER}, its home, its group memberships and any microsandbox store are kept: remove them yourself if nothing else uses them (sudo userdel -r ${NODE_USER})`,
  ];
}
