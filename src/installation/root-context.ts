// Root's context (issue #23: typed per half): what root's drivers are given beyond every
// driver's — the installation's journal; and an install's, with the node half's inputs.
import type { Journal } from '../../records/journal.ts';
import type { DriverContext } from '../resources/driver.ts';
import type { ResourceOf } from '../resources/resources.ts';
import type { Bundle } from '../bundle/bundle.ts';
import type { NodeConfiguration } from '../net/core-schemas.ts';
import type { NodeResource } from '../node/drivers/node-context.ts';
import type { EarlyNodeProbe } from './node-half.ts';

export interface RootContext extends DriverContext {
  journal: Journal;
}

/** An install's: root's, and what the node half needs to run (status and uninstall never run
 *  it, and have none). */
export interface InstallContext extends RootContext {
  node: NodeHalfInputs;
  /** How the run waits until Core lists the node connected and ready (the installer's; an
   *  upgrade's settling step waits with it: src/installation/upgrade-rollback.ts), watching the
   *  service run given: if it stops, the wait ends. */
  ready?: (watch: { unit: string; invocation: string } | undefined) => Promise<unknown>;
  /** Issue #41: the node half's dry run, started in preflight (src/installation/node-half.ts). */
  earlyNodeProbe?: EarlyNodeProbe;
}

/** The kinds root's half declares (src/installation/desired.ts), and a staging's one step
 *  (src/installation/staged-release.ts). */
export type RootKind =
  | 'account'
  | 'membership'
  | 'directory'
  | 'file'
  | 'unit'
  | 'service'
  | 'network'
  | 'node'
  | 'staged-release'
  | 'previous-program'
  | 'upgrade-rollback'
  | 'installation-record';
export type RootResource = ResourceOf<RootKind>;

/** What the node half needs to run (src/installation/node-half.ts). */
export interface NodeHalfInputs {
  coreUrl: string;
  corePin?: string | null;
  name: string;
  token: string | undefined;
  configuration: NodeConfiguration;
  providerGroup: { name: string; gid: number };
  checkpointRoot?: string;
  proxyEnv: Record<string, string>;
  /** Issue #40: this host's ID (src/node/host-id.ts), recorded with the node; null: none. */
  hostId?: string | null;
  /** Issue #40: the operator confirmed this host (install --same-host). */
  sameHost?: boolean;
  /** OFFLINE-01: the node half reads the release from this bundle (its descriptor, as fd 3). */
  bundle?: Bundle;
  /** OFFLINE-01: only stage the bundle's release for the running node's rollout. */
  stage?: boolean;
  /** The node account's part of the installation's desired value (src/installation/desired.ts)
   *  that root does not record (those are root's own steps), in the layout's paths: root plans
   *  it itself before the node program is installed (src/installation/node-half-first.ts). */
  part?: NodeResource[];
  /** Told once the child is started (status starts root's own probes then: issue #41). */
  spawned?: () => void;
}
