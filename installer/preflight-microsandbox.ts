// PRE-05 and HOST-11 for a microsandbox Core: /dev/kvm read-write for group kvm, the glibc
// microsandbox links, a runtime directory short enough for its sockets, the checkpoint store the
// operator mounted, capacity, and the disk the node files and the imported image need.
import { readGroups } from '../src/host/accounts.ts';
import { startNodeProbe } from './early-node-probe.ts';
import { hostCapacity } from '../src/host/probe.ts';
import { releaseManifest } from './release.ts';
import type { ReleaseManifest } from '../src/net/release-manifest.ts';
import { isRegistered } from '../src/node/identity-store.ts';
import {
  GLIBC_LOADER,
  KVM_DEVICE,
  NODE_HOME,
  NODE_UID,
  PROVIDER_GROUPS,
  RUNTIME_HOME,
  STORE_DIR,
  importedImageDir,
  storeDirs,
} from '../src/layout.ts';
import type { InstallContext } from './install-context.ts';
import type { Findings } from './preflight-findings.ts';
import {
  checkCapacity,
  checkDisk,
  fail,
  type DiskNeed,
  type SandboxNeed,
} from './preflight-checks.ts';
import { readNodeIdentity } from '../src/installation/node-state.ts';

/** Each check runs, and each problem is one more finding (installer/preflight-findings.ts). */
export async function checkMicrosandbox(
  ctx: InstallContext,
  need: SandboxNeed,
  found: Findings,
  /** The release's manifest was read: the disk it needs can be checked. */
  release: boolean,
): Promise<void> {
  await found.check(() => checkKvm(ctx));
  if ((await ctx.host.lstat(GLIBC_LOADER)) === undefined)
    found.fail('glibc_missing', { loader: GLIBC_LOADER });
  const runtimeHome = ctx.host.path(RUNTIME_HOME);
  if (Buffer.byteLength(runtimeHome) > 48)
    found.fail('runtime_home_too_long', { path: runtimeHome });
  await found.check(() => checkCheckpointRoot(ctx));
  const { cpus, memoryBytes } = hostCapacity();
  await found.check(() => checkCapacity(cpus, memoryBytes, need));
  if (release) await found.check(async () => checkDisk(await microsandboxDiskNeeds(ctx)));
}

async function checkKvm(ctx: InstallContext): Promise<void> {
  const kvm = await ctx.host.lstat(KVM_DEVICE);
  const group =
    kvm === undefined ? undefined : (await readGroups(ctx.host)).find((g) => g.gid === kvm.gid);
  const usable =
    kvm !== undefined &&
    kvm.isCharacterDevice() &&
    group?.name === PROVIDER_GROUPS.microsandbox &&
    (kvm.mode & 0o060) === 0o060;
  if (!usable || group === undefined) fail('kvm_unavailable');
  ctx.providerGroup = { name: group.name, gid: group.gid, path: KVM_DEVICE };
  await startNodeProbe(ctx);
}

/** HOST-11: the operator mounts the shared store first and gives only oac-node access (the
 *  guide); the installer never creates, chowns or chmods it (HOST-09). */
async function checkCheckpointRoot(ctx: InstallContext): Promise<void> {
  const wanted = ctx.options.checkpointRoot;
  const recorded = ctx.journal.inputs.checkpoint_root ?? undefined;
  if (wanted !== recorded) {
    const identity = await readNodeIdentity(ctx.host, ctx.layout);
    if (identity !== undefined && isRegistered(identity))
      fail('checkpoint_root_changed', {
        theirs: recorded ?? `${storeDirs(STORE_DIR).checkpoints} (node-local)`,
        ours: wanted ?? `${storeDirs(STORE_DIR).checkpoints} (node-local)`,
      });
  }
  if (wanted === undefined) return;
  const found = await ctx.host.lstat(wanted);
  const problem =
    wanted === NODE_HOME || wanted.startsWith(`${NODE_HOME}/`)
      ? `is inside ${NODE_HOME}, which uninstall removes`
      : found === undefined
        ? 'does not exist'
        : !found.isDirectory()
          ? 'is not a directory (a symlink is not followed)'
          : found.uid !== NODE_UID
            ? `is owned by UID ${found.uid}, not oac-node (${NODE_UID})`
            : (found.mode & 0o007) !== 0
              ? `is open to others (mode ${(found.mode & 0o777).toString(8).padStart(4, '0')})`
              : undefined;
  if (problem !== undefined) fail('checkpoint_root_invalid', { path: wanted, problem });
}

/** The three provider files and the Runtime archive (under the node's home), plus the image
 *  unpacked into the store unless the store already holds it. */
async function microsandboxDiskNeeds(ctx: InstallContext): Promise<DiskNeed[]> {
  const configuration = ctx.configuration;
  if (configuration === undefined) return [];
  const manifest: ReleaseManifest = await releaseManifest(ctx, configuration);
  const home = { path: ctx.host.path(NODE_HOME), label: NODE_HOME, for: 'node' as const };
  const store = { path: ctx.host.path(STORE_DIR), label: STORE_DIR, for: 'node' as const };
  const needs: DiskNeed[] = [];
  for (const file of manifest.files) {
    if (file.provider === 'microsandbox') needs.push({ ...home, bytes: file.size });
    if (file.kind !== 'runtime-image') continue;
    const imported = `${importedImageDir(STORE_DIR, file.image.id)}/index.json`;
    if ((await ctx.host.lstat(imported)) !== undefined) continue;
    needs.push({ ...home, bytes: file.size });
    needs.push({ ...store, bytes: file.image.unpacked_size });
  }
  return needs;
}
