// The service, its unit and its proxy settings (UNI-02).
import { envFilePath, unitName, unitPath } from '../installer/context.ts';
import type { Step } from '../src/engine/step.ts';
import { canStartUnits, systemctl } from '../src/host/systemd.ts';
import { owned, type UninstallContext } from './context.ts';

export const serviceStep: Step<UninstallContext, boolean> = {
  id: 'service',
  title: 'Stop the node service',
  probe: async (ctx) => (await ctx.host.lstat(unitPath(ctx.installationId))) !== undefined,
  plan: (ctx, exists) =>
    exists && owned(ctx, 'unit')
      ? { kind: 'remove', detail: `stop and disable ${unitName(ctx.installationId)}` }
      : { kind: 'skip', detail: `${unitName(ctx.installationId)} not installed` },
  async apply(ctx) {
    const unit = unitName(ctx.installationId);
    // Disabling an already stopped or disabled unit is fine; a missing manager (--root) too.
    const live = (await canStartUnits(ctx.host)) ? ['--now'] : [];
    await systemctl(ctx.host, ['disable', ...live, unit]);
    return { outcome: 'removed', detail: `${unit} stopped and disabled` };
  },
};

export const unitFileStep: Step<UninstallContext, boolean> = {
  id: 'unit',
  title: 'Service unit',
  probe: async (ctx) => (await ctx.host.lstat(unitPath(ctx.installationId))) !== undefined,
  plan: (ctx, exists) =>
    exists && owned(ctx, 'unit')
      ? { kind: 'remove', detail: `remove ${unitPath(ctx.installationId)}` }
      : { kind: 'skip', detail: `${unitPath(ctx.installationId)} absent` },
  async apply(ctx) {
    await ctx.host.remove(unitPath(ctx.installationId));
    if (await canStartUnits(ctx.host)) await systemctl(ctx.host, ['daemon-reload']);
    await ctx.journal.forget('unit');
    return { outcome: 'removed', detail: unitPath(ctx.installationId) };
  },
};

export const envFileStep: Step<UninstallContext, boolean> = {
  id: 'proxy-settings',
  title: 'Proxy settings',
  probe: async (ctx) => (await ctx.host.lstat(envFilePath(ctx.installationId))) !== undefined,
  plan: (ctx, exists) =>
    exists
      ? { kind: 'remove', detail: `remove ${envFilePath(ctx.installationId)}` }
      : { kind: 'skip', detail: 'no proxy settings' },
  async apply(ctx) {
    await ctx.host.remove(envFilePath(ctx.installationId));
    await ctx.journal.forget('proxy-settings');
    return { outcome: 'removed', detail: envFilePath(ctx.installationId) };
  },
};
