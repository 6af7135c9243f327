// PRE-01…09: every check runs before anything on the host changes, and the first failure is
// one line naming what to fix. Root and the token's source are checked by the CLI before the
// token is read; the rest is here. Reads Core's configuration (ENR-01: the token is not used up)
// and the release manifest, which later steps reuse.
import { EXIT, OacError } from '../src/errors.ts';
import { listJournals } from '../records/journal.ts';
import { readGroups } from '../src/host/accounts.ts';
import { freeBytes, hostCapacity, selinuxEnforcing } from '../src/host/probe.ts';
import { canStartUnits } from '../src/host/systemd.ts';
import { hint, message, type MessageCode } from '../src/messages.ts';
import type { CoreAuth } from '../src/net/core-client.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import { DockerApi, type DockerInfo } from '../src/net/docker-api.ts';
import { fetchManifest, runtimeImageFile } from '../src/agent/node-files.ts';
import { DOCKER_SOCKET, KVM_DEVICE, NODE_HOME, type InstallContext } from './context.ts';

const MIB = 1024 * 1024;

function fail(code: MessageCode, values: Record<string, string | number> = {}): never {
  throw new OacError(code, message(code, values), { hint: hint(code) });
}

export async function preflight(ctx: InstallContext, auth: CoreAuth): Promise<void> {
  const { host, options } = ctx;
  if (process.platform !== 'linux' || process.arch !== 'x64') fail('not_linux_amd64');
  if (!host.prefixed && !(await canStartUnits(host))) fail('no_systemd');
  if (await selinuxEnforcing(host)) fail('selinux_enforcing');
  await checkOneCore(ctx);
  const client = new CoreClient({
    coreUrl: options.coreUrl,
    dispatcher: sharedDispatcher(options.proxyEnv),
  });
  const configuration = await client.readConfiguration(auth);
  if (new URL(configuration.core_url).origin !== new URL(options.coreUrl).origin)
    fail('core_url_changed');
  ctx.configuration = configuration;
  const spec = configuration.specification;
  const need = { cpus: positive(spec.cpus), memoryMib: positive(spec.memory_mib) };
  if (configuration.provider === 'docker') {
    await checkDocker(ctx, need);
    return;
  }
  await checkKvm(ctx, need);
  // The host checks run, so an operator learns what the host lacks; the node files and the
  // microsandbox provider file are not built yet: say so rather than install half a node.
  throw new OacError(
    'not_built',
    'Installing a microsandbox node is not built yet (see issue #4); this host passed its checks',
    {
      exitCode: EXIT.notBuilt,
    },
  );
}

async function checkOneCore(ctx: InstallContext): Promise<void> {
  const ours = new URL(ctx.options.coreUrl).origin;
  for (const journal of await listJournals(ctx.host)) {
    if (journal.installation_id === ctx.options.installationId) continue;
    if (new URL(journal.core_url).origin !== ours) fail('another_core');
    fail('another_installation', {
      theirs: `installation ${journal.installation_id}`,
      ours: `installation ${ctx.options.installationId}`,
    });
  }
}

async function checkDocker(
  ctx: InstallContext,
  need: { cpus: number; memoryMib: number },
): Promise<void> {
  const socket = await ctx.host.lstat(DOCKER_SOCKET);
  if (socket === undefined || !socket.isSocket()) fail('docker_unavailable');
  const group = (await readGroups(ctx.host)).find((g) => g.gid === socket.gid);
  const mode = (socket.mode & 0o777).toString(8).padStart(4, '0');
  if (group?.name !== 'docker' || (socket.mode & 0o777) !== 0o660) {
    fail('docker_socket_mode', {
      socket: DOCKER_SOCKET,
      owner: `group ${group?.name ?? socket.gid}`,
      mode,
    });
  }
  ctx.providerGroup = { name: group.name, gid: group.gid, path: DOCKER_SOCKET };
  const docker = new DockerApi(`unix://${ctx.host.path(DOCKER_SOCKET)}`);
  let info: DockerInfo;
  try {
    info = await docker.info();
  } catch {
    fail('docker_unavailable');
  } finally {
    await docker.close();
  }
  if (!info.MemoryLimit || !info.CpuCfsQuota || !info.CpuCfsPeriod) fail('docker_limits');
  checkCapacity(info.NCPU, info.MemTotal, need);
  ctx.diskNeed = await imageDiskNeed(ctx);
  // PRE-07: the image download plus its unpacked copy, before anything is downloaded.
  const free = await freeBytes(ctx.host, NODE_HOME);
  const needBytes = ctx.diskNeed ?? 0;
  if (free < needBytes)
    fail('disk_too_small', {
      free: Math.floor(free / MIB),
      path: NODE_HOME,
      need: Math.ceil(needBytes / MIB),
    });
}

async function checkKvm(
  ctx: InstallContext,
  need: { cpus: number; memoryMib: number },
): Promise<void> {
  const kvm = await ctx.host.lstat(KVM_DEVICE);
  const group =
    kvm === undefined ? undefined : (await readGroups(ctx.host)).find((g) => g.gid === kvm.gid);
  if (
    kvm === undefined ||
    !kvm.isCharacterDevice() ||
    group?.name !== 'kvm' ||
    (kvm.mode & 0o060) !== 0o060
  )
    fail('kvm_unavailable');
  ctx.providerGroup = { name: group.name, gid: group.gid, path: KVM_DEVICE };
  const { cpus, memoryBytes } = hostCapacity();
  checkCapacity(cpus, memoryBytes, need);
}

function checkCapacity(
  cpus: number,
  memoryBytes: number,
  need: { cpus: number; memoryMib: number },
): void {
  const memory = Math.floor(memoryBytes / MIB);
  if (cpus < need.cpus || memory < need.memoryMib) {
    fail('host_too_small', { cpus, memory, need_cpus: need.cpus, need_memory: need.memoryMib });
  }
}

function positive(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The Runtime archive plus its unpacked layers, unless Docker already has the image (DL-05). */
async function imageDiskNeed(ctx: InstallContext): Promise<number> {
  const configuration = ctx.configuration;
  if (configuration === undefined) return 0;
  const manifest = await fetchManifest(
    new URL(ctx.options.coreUrl).origin,
    configuration,
    ctx.options.proxyEnv,
  );
  const image = runtimeImageFile(manifest);
  const docker = new DockerApi(`unix://${ctx.host.path(DOCKER_SOCKET)}`);
  try {
    const id = await docker.imageId(image.image.reference).catch(() => undefined);
    if (id === image.image.id || id === image.image.manifest_digest) return 0;
  } finally {
    await docker.close();
  }
  return image.size + image.image.unpacked_size;
}
