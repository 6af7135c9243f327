// A fresh throwaway host with the reference Core in its network namespace, for one test; both
// stopped afterwards whatever happens.
import type { E2eHost } from '../harness/host.ts';
import { bootHost } from '../harness/host.ts';
import { startCoreInHost, type CoreInHost } from './core-in-host.ts';

export async function withHostAndCore(
  coreArgs: string[],
  fn: (host: E2eHost, core: CoreInHost) => Promise<void>,
): Promise<void> {
  const host = await bootHost();
  let core: CoreInHost | undefined;
  try {
    core = await startCoreInHost(host, coreArgs);
    await fn(host, core);
  } finally {
    await core?.stop();
    await host.stop();
  }
}
