// Issue #41: the node half's dry run is the longest probe of a rerun (another process, its own
// probes); it starts in preflight as soon as its inputs are known (Core's configuration, the
// provider group) and runs beside the rest of preflight and root's own probes. The node step's
// probe takes its answer only when the request it would send is the same
// (src/installation/node-half.ts); otherwise it asks the child itself.
import { startEarlyProbe } from '../src/installation/node-half.ts';
import type { InstallContext } from './install-context.ts';

export async function startNodeProbe(ctx: InstallContext): Promise<void> {
  const { configuration, providerGroup, options } = ctx;
  // A bundle's run may stage a release instead, and hands the child a descriptor: as it was.
  if (configuration === undefined || providerGroup === undefined) return;
  if (options.bundle !== undefined || ctx.staging !== undefined) return;
  // The node step's inputs, as installer/install-plan.ts gives them.
  const node = { ...options, token: ctx.token, configuration, providerGroup };
  const { host, layout, journal, emit } = ctx;
  ctx.earlyNodeProbe = await startEarlyProbe({
    host,
    layout,
    journal,
    emit,
    node,
    signal: options.signal,
  });
}
