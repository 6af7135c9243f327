// Every resource kind by name (issue #38): the registry of the node library
// (src/node/kind-registry.ts) and the installation's own steps (src/installation/node-half.ts,
// staged-release.ts). What a plan, the journal, status, saved plans and uninstall need to know
// of a resource they ask its kind here, never by testing which kind it is.
import type { Driver as CoreDriver } from '../core/driver.ts';
import type { DriverContext } from '../resources/driver.ts';
import type { KindModule, Props } from '../resources/kind.ts';
import type { Kind, RecordedResource, Resource, ResourceOf } from '../resources/resources.ts';
import { KINDS } from '../node/kind-registry.ts';
import { nodeStepKind } from './node-half.ts';
import { stagedReleaseKind } from './staged-release.ts';
import { previousProgramKind } from './previous-program.ts';
import { upgradeRollbackKind } from './upgrade-rollback.ts';
import { installationRecordKind } from './installation-record.ts';

type Registry = { readonly [K in Kind]: KindModule<K> };

// Made on first use, so that no import order can find it half built.
let registry: Registry | undefined;

export function kindOf<K extends Kind>(r: ResourceOf<K>): KindModule<K> {
  registry ??= {
    ...KINDS,
    node: nodeStepKind,
    'staged-release': stagedReleaseKind,
    'previous-program': previousProgramKind,
    'upgrade-rollback': upgradeRollbackKind,
    'installation-record': installationRecordKind,
  };
  return registry[r.kind as K] as unknown as KindModule<K>;
}

/** The journal records it (root's resources); the node half's own are not. */
export function isRecorded(r: Resource): r is RecordedResource {
  return kindOf(r).recorded;
}

/** One line naming the resource (journal `name`, status, messages). */
export const nameOf = (r: Resource): string => kindOf(r).name(r);

/** The line uninstall's plan prints for removing a resource. */
export const removalOf = (r: Resource): string => kindOf(r).removal(r);

/** The properties the journal keeps of a resource: what status compares, never content. */
export const recordedProps = (r: Resource): Props => kindOf(r).recordedProps(r);

/** Whether the host holds the resource now, as its kind's driver probes it. */
export async function isOnHost(r: Resource, ctx: DriverContext): Promise<boolean> {
  const driver = kindOf(r).driver as unknown as CoreDriver<Resource, unknown, DriverContext>;
  return driver.exists(await driver.probe(r, ctx));
}
