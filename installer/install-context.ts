// What preflight and the install share: the Host, the parsed options, the journal, and what
// preflight learned (Core's configuration, the provider group).
import type { Journal } from '../records/journal.ts';
import type { Emit } from '../src/core/events.ts';
import type { Host } from '../src/host/host.ts';
import type { InstallationId, Layout } from '../src/layout.ts';
import type { NodeConfiguration } from '../src/net/core-schemas.ts';
import type { Bundle } from '../src/bundle/bundle.ts';
import type { ReleaseManifest } from '../src/net/release-manifest.ts';
import type { EarlyNodeProbe } from '../src/installation/node-half.ts';

export interface InstallOptions {
  coreUrl: string;
  /** TRUST-01: the pin of Core's TLS key (`sha256:<hex>`), null for the host's trust store
   *  (`--core-pin none`), undefined for the one the node recorded (install resolves it first). */
  corePin?: string | null;
  installationId: InstallationId;
  name: string;
  dryRun: boolean;
  checkpointRoot?: string;
  /** OFFLINE-01: the release files come from this bundle, opened by the CLI, not the console. */
  bundle?: Bundle;
  /** OFFLINE-01: the SHA-256 of the bundle's manifest, as the command names it. */
  bundleManifestSha256?: string;
  /** OFFLINE-01: the bundle's absolute path, as a saved plan keeps it for `apply`. */
  bundlePath?: string;
  /** UPG-01: an older program may replace the newer one the journal records. */
  allowDowngrade?: boolean;
  /** Issue #40: the operator confirms that the node recorded with another host ID is this
   *  host's (its machine ID was changed on purpose): the new ID is recorded. */
  sameHost?: boolean;
  /** The six proxy variables as the installer received them (DL-04, HOST-06). */
  proxyEnv: Record<string, string>;
  /** Aborted when the operator interrupts (OPS-03): the run stops at the next step boundary,
   *  and every process it started stops with it. */
  signal?: AbortSignal;
}

export interface ProviderGroup {
  name: string;
  gid: number;
  /** The device or socket whose group it is. */
  path: string;
}

export interface InstallContext {
  host: Host;
  layout: Layout;
  options: InstallOptions;
  journal: Journal;
  emit: Emit;
  token: string | undefined;
  configuration?: NodeConfiguration;
  /** The bundle was checked whole in this run (installer/release.ts). */
  bundleVerified?: boolean;
  /** OFFLINE-01: the node serves an older generation; this run stages the bundle's release for
   *  its rollout to `generation` (Core's current) instead of reconciling the installation. */
  staging?: { generation: number };
  providerGroup?: ProviderGroup;
  /** Issue #41: the node half's dry run, started once its inputs are known
   *  (installer/early-node-probe.ts). */
  earlyNodeProbe?: EarlyNodeProbe;
  /** The release manifest read for `configuration` in this run (installer/release.ts). */
  manifest?: { configuration: NodeConfiguration; manifest: ReleaseManifest };
}
