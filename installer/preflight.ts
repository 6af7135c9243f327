// PRE-01…09: every check runs before anything on the host changes, and every problem found is
// one line naming what to fix, all of them in one run (installer/preflight-findings.ts). A host
// that is no supported host at all (not Linux on amd64, no systemd, SELinux enforcing), or that
// holds another node, is refused first, on its own, before Core is asked anything. Root and the token's source are
// checked by the CLI before the token is read; the rest is here. Reads Core's configuration
// (ENR-01: the token is not used up) and the release manifest, which later steps reuse.
import { listJournals } from '../records/journal.ts';
import { readGroups } from '../src/host/accounts.ts';
import { selinuxEnforcing } from '../src/host/probe.ts';
import { canStartUnits } from '../src/host/systemd.ts';
import type { CoreAuth } from '../src/net/core-client.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import { DockerApi, type DockerInfo } from '../src/net/docker-api.ts';
import { runtimeImageFile } from '../src/node/node-files.ts';
import { releaseManifest } from './release.ts';
import { DOCKER_SOCKET, PROVIDER_GROUPS, NODE_HOME } from '../src/layout.ts';
import type { InstallContext } from './install-context.ts';
import {
  checkCapacity,
  checkDisk,
  checkDockerVersion,
  fail,
  type DiskNeed,
  type SandboxNeed,
} from './preflight-checks.ts';
import { checkMicrosandbox } from './preflight-microsandbox.ts';
import { startNodeProbe } from './early-node-probe.ts';
import { Findings } from './preflight-findings.ts';
import type { NodeConfiguration } from '../src/net/core-schemas.ts';
import { isRegistered } from '../src/node/identity-store.ts';
import { readNodeIdentity, readServingGeneration } from '../src/installation/node-state.ts';

/** Every check; the problems found are returned, not thrown, where a plan can still be made
 *  (issue #38: they are the plan's first diagnostics, so a dry run shows every step beside
 *  them); what leaves nothing to plan (an unsupported host, another node, Core's answer) stops
 *  the run here. */
export async function preflight(ctx: InstallContext, auth: CoreAuth): Promise<Findings> {
  const { host } = ctx;
  if (process.platform !== 'linux' || process.arch !== 'x64') fail('not_linux_amd64');
  if (!host.prefixed && !(await canStartUnits(host))) fail('no_systemd');
  if (await selinuxEnforcing(host)) fail('selinux_enforcing');
  // A host that holds another node (another installation, another Core) is refused on its own
  // too: what else this run would find is about a node the host cannot have.
  await checkOneCore(ctx);
  const found = new Findings();
  const configuration = await ourConfiguration(ctx, auth, found);
  ctx.configuration = configuration;
  // RERUN-02: a registered node serving another generation than Core's changes nothing, not
  // even a download, and nothing else is checked against the new release: on its own.
  await checkSameConfiguration(ctx);
  // OFFLINE-01: a bundle of another release, or a damaged one, stops here; what needs the
  // release (the disk it takes) is then not checked, nor the release read again.
  const release = await found.check(() => releaseManifest(ctx, configuration));
  const spec = configuration.specification;
  const need = { cpus: positive(spec.cpus), memoryMib: positive(spec.memory_mib) };
  if (configuration.provider === 'docker') {
    if (ctx.options.checkpointRoot !== undefined) found.fail('checkpoint_root_docker');
    await checkDocker(ctx, need, found, release);
  } else await checkMicrosandbox(ctx, need, found, release);
  return found;
}

/** Core's configuration for this installation; without it (Core unreachable, the token
 *  refused, another installation's or another Core's configuration) no later check means
 *  anything, so the run stops there with what was found so far. */
async function ourConfiguration(
  ctx: InstallContext,
  auth: CoreAuth,
  found: Findings,
): Promise<NodeConfiguration> {
  const { options } = ctx;
  const client = new CoreClient({
    coreUrl: options.coreUrl,
    dispatcher: sharedDispatcher(options.proxyEnv),
  });
  let configuration: NodeConfiguration | undefined;
  await found.check(async () => (configuration = await client.readConfiguration(auth)));
  if (configuration === undefined) return found.stop();
  // SEC-04: Core's word is checked against the command before anything changes, and before any
  // check relies on it. A token of another installation would otherwise name the unit, the
  // record and the state after the wrong ID, and the uninstall command Web prints for the real
  // one would find nothing; a configuration naming another Core is no answer for this command.
  if (configuration.installation_id !== options.installationId)
    found.fail('configuration_mismatch', {
      theirs: configuration.installation_id,
      ours: options.installationId,
    });
  else if (originOf(configuration.core_url) !== new URL(options.coreUrl).origin)
    found.fail('core_url_changed');
  else return configuration;
  return found.stop();
}

async function checkOneCore(ctx: InstallContext): Promise<void> {
  const ours = new URL(ctx.options.coreUrl).origin;
  for (const journal of await listJournals(ctx.host)) {
    if (journal.installation_id === ctx.options.installationId) {
      // RERUN-02: the same installation's node, enrolled at another Core address.
      const theirs = new URL(journal.core_url).origin;
      if (theirs !== ours) fail('another_installation', { theirs, ours });
      continue;
    }
    if (new URL(journal.core_url).origin !== ours) fail('another_core');
    fail('another_installation', {
      theirs: `installation ${journal.installation_id}`,
      ours: `installation ${ctx.options.installationId}`,
    });
  }
}

/** RERUN-02: a registered node follows configuration changes itself (issue #6); a rerun while
 *  it serves another generation than Core's current one changes nothing (not even a download)
 *  and says so. */
async function checkSameConfiguration(ctx: InstallContext): Promise<void> {
  const identity = await readNodeIdentity(ctx.host, ctx.layout);
  if (identity === undefined || !isRegistered(identity)) return;
  const serving = await readServingGeneration(ctx.host, ctx.layout);
  const registered = serving ?? identity.approved.generation;
  const now = ctx.configuration?.generation;
  if (now === undefined || now === registered) return;
  // OFFLINE-01: with a bundle of the new release, stage it for the node's own rollout.
  if (ctx.options.bundle !== undefined) ctx.staging = { generation: now };
  else fail('configuration_changed', { registered, now });
}

async function checkDocker(
  ctx: InstallContext,
  need: SandboxNeed,
  found: Findings,
  release: boolean,
): Promise<void> {
  const socket = await ctx.host.lstat(DOCKER_SOCKET);
  if (socket === undefined || !socket.isSocket()) return found.fail('docker_unavailable');
  const group = (await readGroups(ctx.host)).find((g) => g.gid === socket.gid);
  const mode = (socket.mode & 0o777).toString(8).padStart(4, '0');
  if (group?.name !== PROVIDER_GROUPS.docker || (socket.mode & 0o777) !== 0o660) {
    found.fail('docker_socket_mode', {
      socket: DOCKER_SOCKET,
      owner: `group ${group?.name ?? socket.gid}`,
      mode,
    });
  } else {
    ctx.providerGroup = { name: group.name, gid: group.gid, path: DOCKER_SOCKET };
    await startNodeProbe(ctx);
  }
  // Asked even through a socket of the wrong mode: its answers are root's daemon's all the
  // same (only root can bind /var/run/docker.sock), and they name the host's other problems.
  const info = await dockerInfo(ctx);
  if (info === undefined) return found.fail('docker_unavailable');
  await found.check(() => checkDockerVersion(info.ServerVersion));
  if (!info.MemoryLimit || !info.CpuCfsQuota || !info.CpuCfsPeriod) found.fail('docker_limits');
  await found.check(() => checkCapacity(info.NCPU, info.MemTotal, need));
  // PRE-07: the image download plus its unpacked copy, before anything is downloaded.
  const dockerRoot = info.DockerRootDir ?? '/var/lib/docker';
  if (release) await found.check(async () => checkDisk(await imageDiskNeeds(ctx, dockerRoot)));
}

/** `docker info`, or undefined when Docker does not answer. */
async function dockerInfo(ctx: InstallContext): Promise<DockerInfo | undefined> {
  const docker = new DockerApi(`unix://${ctx.host.path(DOCKER_SOCKET)}`);
  try {
    return await docker.info();
  } catch {
    return undefined;
  } finally {
    await docker.close();
  }
}

function positive(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The Runtime archive (under the node's home) plus its unpacked layers (where Docker keeps
 *  images), unless Docker already has the image (DL-05). */
async function imageDiskNeeds(ctx: InstallContext, dockerRoot: string): Promise<DiskNeed[]> {
  const configuration = ctx.configuration;
  if (configuration === undefined) return [];
  const image = runtimeImageFile(await releaseManifest(ctx, configuration));
  const docker = new DockerApi(`unix://${ctx.host.path(DOCKER_SOCKET)}`);
  try {
    const id = await docker.imageId(image.image.reference).catch(() => undefined);
    // An image Docker lacks has no id: never equal to a manifest without manifest_digest.
    if (id !== undefined && (id === image.image.id || id === image.image.manifest_digest))
      return [];
  } finally {
    await docker.close();
  }
  return [
    { path: ctx.host.path(NODE_HOME), label: NODE_HOME, bytes: image.size, for: 'node' },
    { path: dockerRoot, label: dockerRoot, bytes: image.image.unpacked_size, for: 'docker' },
  ];
}

/** A URL's origin, as the installer compares Core addresses (scheme and host lower-cased, a
 *  default port dropped, no path); a URL without one (`data:…`) matches nothing. */
function originOf(url: string): string | undefined {
  const origin = new URL(url).origin;
  return origin === 'null' ? undefined : origin;
}
