// The node's Docker network, its state (removed as oac-node, HOST-08), and its program. The
// Runtime image stays: uninstall never deletes Docker images or volumes (UNI-04).
import { DOCKER_SOCKET, stateDir } from '../installer/context.ts';
import { PROGRAM_DIR, programPath } from '../installer/program.ts';
import type { Step } from '../src/engine/step.ts';
import { readdir } from '../src/host/dir.ts';
import { DockerApi } from '../src/net/docker-api.ts';
import { runAsNode } from './as-node.ts';
import { owned, type UninstallContext } from './context.ts';

const networkName = (id: string) => `oac-node-${id}`;

export const networkStep: Step<UninstallContext, boolean> = {
  id: 'network',
  title: 'Docker network',
  async probe(ctx) {
    if (!owned(ctx, 'network')) return false;
    const docker = new DockerApi(`unix://${ctx.host.path(DOCKER_SOCKET)}`);
    try {
      return await docker.networkExists(networkName(ctx.installationId));
    } catch {
      return false;
    } finally {
      await docker.close();
    }
  },
  plan: (ctx, exists) =>
    exists
      ? { kind: 'remove', detail: `remove network ${networkName(ctx.installationId)}` }
      : { kind: 'skip', detail: 'no network of ours' },
  async apply(ctx) {
    const docker = new DockerApi(`unix://${ctx.host.path(DOCKER_SOCKET)}`);
    try {
      await docker.removeNetwork(networkName(ctx.installationId));
    } finally {
      await docker.close();
    }
    await ctx.journal.forget('network');
    return { outcome: 'removed', detail: `network ${networkName(ctx.installationId)}` };
  },
};

export const stateStep: Step<UninstallContext, boolean> = {
  id: 'state',
  title: 'Node state',
  probe: async (ctx) =>
    owned(ctx, 'state') && (await ctx.host.lstat(stateDir(ctx.installationId))) !== undefined,
  plan: (ctx, exists) =>
    exists
      ? { kind: 'remove', detail: `remove ${stateDir(ctx.installationId)}` }
      : { kind: 'skip', detail: 'no node state' },
  async apply(ctx) {
    const path = ctx.host.path(stateDir(ctx.installationId));
    // As the node account, in its own session: root never walks a tree oac-node can write.
    await runAsNode(ctx.host, ['rm', '-rf', '--', path]);
    await ctx.journal.forget('state');
    return { outcome: 'removed', detail: stateDir(ctx.installationId) };
  },
};

export const programStep: Step<UninstallContext, boolean> = {
  id: 'program',
  title: 'Node program',
  probe: async (ctx) =>
    owned(ctx, 'program') && (await ctx.host.lstat(programPath(ctx.installationId))) !== undefined,
  plan: (ctx, exists) =>
    exists
      ? { kind: 'remove', detail: `remove ${programPath(ctx.installationId)}` }
      : { kind: 'skip', detail: 'no node program' },
  async apply(ctx) {
    await ctx.host.remove(`${PROGRAM_DIR}/${ctx.installationId}`);
    if ((await readdir(ctx.host, PROGRAM_DIR)).length === 0) await ctx.host.remove(PROGRAM_DIR);
    await ctx.journal.forget('program');
    return { outcome: 'removed', detail: programPath(ctx.installationId) };
  },
};
