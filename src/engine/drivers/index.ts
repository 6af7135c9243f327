// The driver of each resource kind: the one place each kind is probed, diffed, applied and
// removed.
import type { Driver } from '../driver.ts';
import type { Kind } from '../resources.ts';
import { accountDriver } from './account.ts';
import { directoryDriver } from './directory.ts';
import { fileDriver } from './file.ts';
import { membershipDriver } from './membership.ts';
import { networkDriver } from './network.ts';
import { nodeHalfDriver } from './node-half.ts';
import { serviceDriver } from './service.ts';
import { unitDriver } from './unit.ts';
import { dockerImageDriver } from './docker-image.ts';
import { nodeFileDriver } from './node-file.ts';
import { providerFileDriver } from './provider-file.ts';
import { registrationDriver } from './registration.ts';
import { storeImageDriver } from './store-image.ts';

const DRIVERS: { [K in Kind]: Driver<K, never> } = {
  account: accountDriver as Driver<'account', never>,
  membership: membershipDriver as Driver<'membership', never>,
  directory: directoryDriver as Driver<'directory', never>,
  file: fileDriver as Driver<'file', never>,
  unit: unitDriver as Driver<'unit', never>,
  service: serviceDriver as Driver<'service', never>,
  network: networkDriver as Driver<'network', never>,
  node: nodeHalfDriver as Driver<'node', never>,
  'docker-image': dockerImageDriver as Driver<'docker-image', never>,
  'node-file': nodeFileDriver as Driver<'node-file', never>,
  'store-image': storeImageDriver as Driver<'store-image', never>,
  'provider-file': providerFileDriver as Driver<'provider-file', never>,
  registration: registrationDriver as Driver<'registration', never>,
};

/** The driver of a resource's kind, typed loosely: callers pass it the resource it was chosen for. */
export function driverOf(kind: Kind): Driver<Kind, unknown> {
  return DRIVERS[kind] as unknown as Driver<Kind, unknown>;
}
