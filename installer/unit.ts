// Writes the unit and the proxy env file when they differ from what they should be (HOST-03,
// HOST-06). A change to either means the service must restart to read it.
import type { Step } from '../src/engine/step.ts';
import { mustSystemctl, canStartUnits } from '../src/host/systemd.ts';
import { envFilePath, unitPath, type InstallContext } from './context.ts';
import { renderEnvFile, renderUnit } from './unit-file.ts';

/** Kept for the step signatures: the flag lives on InstallContext. */
export type RestartFlag = Pick<InstallContext, 'restartNeeded'>;

export const unitStep: Step<
  InstallContext & RestartFlag,
  { current: string | undefined; wanted: string }
> = {
  id: 'unit',
  title: 'Service unit',
  async probe(ctx) {
    const provider = ctx.configuration?.provider ?? 'docker';
    const wanted = renderUnit({
      installationId: ctx.options.installationId,
      coreUrl: ctx.options.coreUrl,
      provider,
      checkpointRoot: ctx.options.checkpointRoot,
    });
    const current = (await ctx.host.readFile(unitPath(ctx.options.installationId)))?.toString(
      'utf8',
    );
    return { current, wanted };
  },
  plan(ctx, { current, wanted }) {
    const path = unitPath(ctx.options.installationId);
    if (current === undefined) return { kind: 'create', detail: `write ${path}` };
    if (current !== wanted) return { kind: 'update', detail: `rewrite ${path} (it differs)` };
    return { kind: 'unchanged', detail: path };
  },
  async apply(ctx, action, { wanted }) {
    const path = unitPath(ctx.options.installationId);
    await ctx.journal.intend('unit', 'unit', path);
    await ctx.host.writeFile(path, wanted, 0o644);
    if (await canStartUnits(ctx.host)) await mustSystemctl(ctx.host, ['daemon-reload']);
    await ctx.journal.record('unit', { kind: 'unit', name: path, ownership: 'owned', detail: {} });
    ctx.restartNeeded = true;
    return { outcome: action.kind === 'create' ? 'created' : 'updated', detail: path };
  },
};

export const envFileStep: Step<
  InstallContext & RestartFlag,
  { current: string | undefined; wanted: string | undefined }
> = {
  id: 'proxy-settings',
  title: 'Proxy settings',
  async probe(ctx) {
    const current = (await ctx.host.readFile(envFilePath(ctx.options.installationId)))?.toString(
      'utf8',
    );
    return { current, wanted: renderEnvFile(ctx.options.proxyEnv) };
  },
  plan(ctx, { current, wanted }) {
    const path = envFilePath(ctx.options.installationId);
    if (wanted === undefined)
      return current === undefined
        ? { kind: 'skip', detail: 'no proxy' }
        : { kind: 'remove', detail: `remove ${path} (this run has no proxy)` };
    if (current === undefined) return { kind: 'create', detail: `write ${path} (0600)` };
    return current === wanted
      ? { kind: 'unchanged', detail: path }
      : { kind: 'replace', detail: `replace ${path} (other proxy settings)` };
  },
  async apply(ctx, action, { wanted }) {
    const path = envFilePath(ctx.options.installationId);
    ctx.restartNeeded = true;
    if (action.kind === 'remove' || wanted === undefined) {
      await ctx.host.remove(path);
      await ctx.journal.forget('proxy-settings');
      return { outcome: 'removed', detail: path };
    }
    await ctx.journal.intend('proxy-settings', 'file', path);
    await ctx.host.writeFile(path, wanted, 0o600);
    await ctx.journal.record('proxy-settings', {
      kind: 'file',
      name: path,
      ownership: 'owned',
      detail: {},
    });
    return { outcome: action.kind === 'create' ? 'created' : 'replaced', detail: path };
  },
};
