// What one resource kind is, in one place (issue #38, after Terraform's `resource_<kind>.go`):
// its driver (probe, pure diff, apply, remove), how a plan and the journal name it, what the
// journal keeps of it and how the recorded value comes back, how saved plans compare it, whether
// its content is secret, and how it is proved this installation's without a record. Each kind's
// module (src/resources/drivers/<kind>.ts, src/node/drivers/<kind>.ts, the node step in
// src/installation/node-half.ts) defines one; the registry (src/node/kind-registry.ts, with the node
// step in src/installation/kinds.ts) is the only list of them, and nothing else asks which kind
// a resource is.
import { z } from 'zod';
import type { Driver as CoreDriver } from '../core/driver.ts';
import type { DriverContext } from './driver.ts';
import type { Kind, ResourceOf } from './resources.ts';

/** What the journal keeps of a resource: what status compares, never content or secrets. */
export type Props = Record<string, string | number | boolean | null>;

/** What only the installation can tell a kind when it proves a resource ours without a record. */
export interface Proofs {
  /** The node's state directory holds this installation's identity. */
  stateIsThisInstallation(): Promise<boolean>;
}

export interface KindModule<K extends Kind> {
  readonly kind: K;
  /** The journal records it (root's resources); the node half's own live in what root records. */
  readonly recorded: boolean;
  /** Each half calls it with its own context (src/installation/kinds.ts, src/node/kind-registry.ts). */
  readonly driver: CoreDriver<ResourceOf<K>, unknown, never>;
  /** Issue #38: its shapes as zod schemas: the desired value (src/resources/resources.ts); what
   *  its driver's probe finds (every plan holds each probe's answer to it: `checkActual`,
   *  test/unit/kinds.test.ts); and what the journal keeps of it (`recordedProps`), checked when
   *  a record is read back (a property of another type is not taken:
   *  src/installation/recorded.ts). */
  readonly schemas: {
    desired: z.ZodType<ResourceOf<K>>;
    actual: z.ZodType<unknown>;
    recorded: z.ZodType<Props>;
  };
  /** One line naming it: the journal's `name`, status, messages. */
  name(r: ResourceOf<K>): string;
  /** How an uninstall's plan names it in a sentence (`user oac-node`). */
  label(r: ResourceOf<K>): string;
  /** The line an uninstall's plan prints for removing it. */
  removal(r: ResourceOf<K>): string;
  /** Why it stays when `what` (a kept resource) needs it. */
  keptFor(what: string): string;
  /** What the journal keeps of it. */
  recordedProps(r: ResourceOf<K>): Props;
  /** The desired value a record describes: the shape's resource with what the record kept. */
  fromRecord(r: ResourceOf<K>, props: Props): ResourceOf<K>;
  /** The value as two plans compare it (saved plans): without what differs in every run. */
  comparable(r: ResourceOf<K>): ResourceOf<K>;
  /** Its content is a secret: no digest of it is cached, printed or saved. */
  secret(r: ResourceOf<K>): boolean;
  /** The node half makes it (HOST-08): root plans it, the node step applies it. */
  madeByNode(r: ResourceOf<K>): boolean;
  /** Keys of the resources it reads: a change to any of them restarts it (the service). */
  reads(r: ResourceOf<K>): string[];
  /** It is wanted gone (an env file without proxy settings). */
  wantedAbsent(r: ResourceOf<K>): boolean;
  /** The version it carries, when it is a program (UPG-01). */
  version(r: ResourceOf<K>): string | undefined;
  /** A new generation needs it prepared before the node serves it (the rollout); the
   *  provider file (which the rollout switches itself) and the registration do not. */
  perGeneration(r: ResourceOf<K>): boolean;
  /** What to look at when it is missing on a host, besides a rerun (status). */
  missingAdvice(r: ResourceOf<K>): string | undefined;
  /** Whether what the host holds is provably this installation's, with no record to say so. */
  provable(r: ResourceOf<K>, ctx: DriverContext, proofs: Proofs): Promise<boolean>;
}

type Required<K extends Kind, A> = Pick<KindModule<K>, 'kind' | 'recorded' | 'name'> & {
  desired: z.ZodType<ResourceOf<K>>;
  /** The driver and the shape of what its probe finds: one type, A. */
  driver: CoreDriver<ResourceOf<K>, A, never>;
  actual: z.ZodType<A>;
};

/** What the journal keeps of a kind that keeps nothing but its name. Not strict: a record also
 *  carries a run's own marks (`proved`, `kept_unconfirmed`), which no kind reads back. */
const NOTHING_KEPT = z.object({});

/** A kind's module: what it does not say is the plain case (removed by name, nothing recorded
 *  beyond its name, compared as it is, never secret, made by root, reads nothing, always
 *  wanted, no version, never provable). */
export function defineKind<K extends Kind, A>(
  spec: Required<K, A> &
    Partial<Omit<KindModule<K>, 'schemas' | 'driver'>> & { recordedShape?: z.ZodType<Props> },
): KindModule<K> {
  const { desired, actual, recordedShape, driver, ...rest } = spec;
  return {
    schemas: { desired, actual, recorded: recordedShape ?? NOTHING_KEPT },
    driver: driver as KindModule<K>['driver'],
    label: spec.name,
    removal: (r) => `remove ${spec.name(r)}`,
    keptFor: (what) => `it holds ${what}`,
    recordedProps: () => ({}),
    fromRecord: (r) => r,
    comparable: (r) => r,
    secret: () => false,
    madeByNode: () => false,
    reads: () => [],
    wantedAbsent: () => false,
    version: () => undefined,
    missingAdvice: () => undefined,
    perGeneration: () => true,
    provable: async () => false,
    ...rest,
  };
}

/** A record's text property, if it is one. */
export function textProp(props: Props, key: string): string | undefined {
  const value = props[key];
  return typeof value === 'string' ? value : undefined;
}

/** Issue #38: a probe's answer held to its kind's shape in every plan (root's and the node
 *  half's): an answer outside it is a bug of the driver, stopped before anything is decided. */
export function checkActual(schemas: { actual: z.ZodType<unknown> }, key: string, actual: unknown) {
  const parsed = schemas.actual.safeParse(actual);
  const issue = parsed.error?.issues[0];
  if (issue === undefined) return;
  const where = issue.path.length === 0 ? 'its answer' : issue.path.join('.');
  throw new Error(
    `the probe of ${key} answered outside its kind's shape: ${where}: ${issue.message}`,
  );
}
