// The registry of resource kinds (issue #38): the one list of them, each kind's module given by
// name (src/resources/kind.ts says what a module holds). The installation's own steps (the node
// half, a staged release) are added where they are defined (src/installation/kinds.ts); a kind
// missing from either list fails to type-check there.
import type { KindModule } from '../resources/kind.ts';
import type { Kind } from '../resources/resources.ts';
import { accountKind } from '../resources/drivers/account.ts';
import { directoryKind } from '../resources/drivers/directory.ts';
import { fileKind } from '../resources/drivers/file.ts';
import { membershipKind } from '../resources/drivers/membership.ts';
import { networkKind } from '../resources/drivers/network.ts';
import { serviceKind } from '../resources/drivers/service.ts';
import { unitKind } from '../resources/drivers/unit.ts';
import { dockerImageKind } from './drivers/docker-image.ts';
import { nodeFileKind } from './drivers/node-file.ts';
import { providerFileKind } from './drivers/provider-file.ts';
import { registrationKind } from './drivers/registration.ts';
import { storeImageKind } from './drivers/store-image.ts';

export type LibraryKind = Exclude<
  Kind,
  'node' | 'staged-release' | 'previous-program' | 'upgrade-rollback' | 'installation-record'
>;

export const KINDS: { readonly [K in LibraryKind]: KindModule<K> } = {
  account: accountKind,
  membership: membershipKind,
  directory: directoryKind,
  file: fileKind,
  unit: unitKind,
  service: serviceKind,
  network: networkKind,
  'docker-image': dockerImageKind,
  'node-file': nodeFileKind,
  'store-image': storeImageKind,
  'provider-file': providerFileKind,
  registration: registrationKind,
};
