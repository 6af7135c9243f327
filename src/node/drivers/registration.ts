// The node's registration with Core, by the node half with the enrollment token (ENR-02: the
// identity is written before Core is asked, so a lost answer is retried with the same one). A
// registered node needs no token (RERUN-01). Core removes nodes; uninstall only asks it. The pin
// of Core's key (TRUST-01) is part of it: a rerun with another pin updates the identity, which the
// service, status and uninstall read.
import { z } from 'zod';
import { isRegistered, loadIdentity } from '../identity-store.ts';
import { registerNode } from '../register.ts';
import type { Driver } from '../../resources/driver.ts';
import { prepareOf, type NodeContext } from './node-context.ts';
import { defineKind } from '../../resources/kind.ts';
import { REGISTRATION_RESOURCE } from '../../resources/resources.ts';

/** What the probe finds: whether the node is registered, the pin it keeps for Core, and the
 *  host it was recorded on (absent: none recorded yet; issue #40). */
const REGISTRATION_ACTUAL = z.strictObject({
  registered: z.boolean(),
  pin: z.string().nullable(),
  hostId: z.string().nullable().optional(),
});
type RegistrationActual = z.infer<typeof REGISTRATION_ACTUAL>;

export const registrationDriver: Driver<'registration', RegistrationActual, NodeContext> = {
  async probe(r, { host }) {
    const identity = await loadIdentity(host.path(r.stateDir));
    return {
      registered: identity !== undefined && isRegistered(identity),
      pin: identity?.core_pin ?? null,
      ...(identity?.host_id === undefined ? {} : { hostId: identity.host_id }),
    };
  },
  exists: (a) => a.registered,
  diff(r, { registered, pin, hostId }) {
    if (!registered) return { kind: 'create', detail: `register with ${r.coreUrl}` };
    const host = r.hostId !== null && hostId !== r.hostId ? hostChange(hostId) : undefined;
    if (pin !== r.corePin) {
      const trust = `trust ${trusted(r.corePin)} for Core (was ${trusted(pin)})`;
      return { kind: 'update', detail: host === undefined ? trust : `${trust}; ${host}` };
    }
    if (host !== undefined) return { kind: 'update', detail: host };
    return { kind: 'unchanged', detail: `registered with ${r.coreUrl}` };
  },
  async apply(r, _action, _actual, ctx) {
    const { req } = prepareOf(ctx);
    const { identity, outcome } = await registerNode({
      configPath: ctx.host.path(r.configPath),
      stateDir: ctx.host.path(r.stateDir),
      coreUrl: r.coreUrl,
      corePin: r.corePin,
      name: r.name,
      token: req.token ?? undefined,
      managed: true,
      hostId: r.hostId,
      sameHost: r.sameHost,
    });
    if (outcome === 'repinned')
      return { outcome: 'updated', detail: `trusts ${trusted(r.corePin)} for Core` };
    if (outcome === 'rehosted') return { outcome: 'updated', detail: 'this host recorded' };
    return { outcome: 'created', detail: `node ${identity.node_id}` };
  },
  remove: () => Promise.resolve({ outcome: 'skipped', detail: 'Core removes nodes' }),
};

/** Issue #40: the host ID recorded for the first time (a node registered before it was), or a
 *  new one the operator confirmed (install --same-host; root refused a copy before this). */
function hostChange(recorded: string | null | undefined): string {
  return typeof recorded === 'string'
    ? "record this host's new machine ID (confirmed with --same-host)"
    : 'record the host this node belongs to';
}

function trusted(pin: string | null): string {
  return pin === null ? "the host's trust store" : `the key ${pin}`;
}

/** The registration with Core as a kind (src/resources/kind.ts): unrecorded. */
export const registrationKind = defineKind({
  kind: 'registration',
  desired: REGISTRATION_RESOURCE,
  recorded: false,
  driver: registrationDriver,
  actual: REGISTRATION_ACTUAL,
  perGeneration: () => false,
  name: (r) => `registration with ${r.coreUrl}`,
});
