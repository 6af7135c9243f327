// The node's registration with Core, by the node half with the enrollment token (ENR-02: the
// identity is written before Core is asked, so a lost answer is retried with the same one). A
// registered node needs no token (RERUN-01). Core removes nodes; uninstall only asks it.
import { isRegistered, loadIdentity } from '../../agent/identity-store.ts';
import { registerNode } from '../../agent/register.ts';
import type { Driver } from '../driver.ts';
import { prepareOf } from './prepare-of.ts';

export const registrationDriver: Driver<'registration', { registered: boolean }> = {
  async probe(r, { host }) {
    const identity = await loadIdentity(host.path(r.stateDir));
    return { registered: identity !== undefined && isRegistered(identity) };
  },
  exists: (a) => a.registered,
  diff: (r, { registered }) =>
    registered
      ? { kind: 'unchanged', detail: `registered with ${r.coreUrl}` }
      : { kind: 'create', detail: `register with ${r.coreUrl}` },
  async apply(r, _action, _actual, ctx) {
    const { req } = prepareOf(ctx);
    const { identity } = await registerNode({
      configPath: ctx.host.path(r.configPath),
      stateDir: ctx.host.path(r.stateDir),
      coreUrl: r.coreUrl,
      name: r.name,
      token: req.token ?? undefined,
      managed: true,
    });
    return { outcome: 'created', detail: `node ${identity.node_id}` };
  },
  remove: () => Promise.resolve({ outcome: 'skipped', detail: 'Core removes nodes' }),
};
