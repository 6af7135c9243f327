// Enables the unit at boot and starts it; restarts it when its unit or proxy settings changed
// (HOST-06), and leaves a running, unchanged service alone (RERUN-01).
import type { Step } from '../src/engine/step.ts';
import { canStartUnits, isActive, isEnabled, mustSystemctl } from '../src/host/systemd.ts';
import { unitName, type InstallContext } from './context.ts';
import type { RestartFlag } from './unit.ts';

interface Actual {
  enabled: boolean;
  active: boolean;
  canStart: boolean;
}

export const startStep: Step<InstallContext & RestartFlag, Actual> = {
  id: 'service',
  title: 'Start the node service',
  async probe(ctx) {
    const unit = unitName(ctx.options.installationId);
    return {
      enabled: await isEnabled(ctx.host, unit),
      active: await isActive(ctx.host, unit),
      canStart: await canStartUnits(ctx.host),
    };
  },
  plan(ctx, { enabled, active, canStart }) {
    const unit = unitName(ctx.options.installationId);
    if (!canStart)
      return enabled
        ? { kind: 'unchanged', detail: `${unit} enabled (not started: no running systemd here)` }
        : { kind: 'create', detail: `enable ${unit} (not started: no running systemd here)` };
    if (!enabled || !active) return { kind: 'create', detail: `enable and start ${unit}` };
    if (ctx.restartNeeded === true)
      return { kind: 'update', detail: `restart ${unit} (its unit or proxy settings changed)` };
    return { kind: 'unchanged', detail: `${unit} enabled and running` };
  },
  async apply(ctx, action, { canStart }) {
    const unit = unitName(ctx.options.installationId);
    if (!canStart) {
      await mustSystemctl(ctx.host, ['enable', unit]);
      return { outcome: 'created', detail: `${unit} enabled` };
    }
    if (action.kind === 'update') {
      await mustSystemctl(ctx.host, ['restart', unit]);
      return { outcome: 'updated', detail: `${unit} restarted` };
    }
    await mustSystemctl(ctx.host, ['enable', '--now', unit]);
    return { outcome: 'created', detail: `${unit} enabled and started` };
  },
};
