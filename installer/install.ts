// `oac-node install`: preflight, then the steps in order, then the wait for Core's "connected
// and ready" (DESIGN.md "Shape"). One installer at a time per host (SEC-05). A rerun of a
// registered node needs no token and changes nothing that already matches (RERUN-01).
import { Journal } from '../records/journal.ts';
import type { Emit } from '../src/engine/events.ts';
import { runSteps, type RunReport } from '../src/engine/runner.ts';
import type { Step } from '../src/engine/step.ts';
import { OacError } from '../src/errors.ts';
import { Host } from '../src/host/host.ts';
import { LockHeldError, lockFile } from '../src/host/lock.ts';
import { hint, message } from '../src/messages.ts';
import type { CoreAuth } from '../src/net/core-client.ts';
import { accountStep } from './account.ts';
import type { InstallContext, InstallOptions } from './context.ts';
import { groupStep } from './group.ts';
import { homeStep } from './home.ts';
import { preflight } from './preflight.ts';
import { prepareStep } from './prepare-step.ts';
import { programStep } from './program.ts';
import { startStep } from './start.ts';
import { envFileStep, unitStep, type RestartFlag } from './unit.ts';
import { readNodeIdentity, waitUntilReady } from './wait-ready.ts';

export interface InstallRequest extends InstallOptions {
  root: string;
  token: string | undefined;
  timeoutSeconds: number;
}

export interface InstallResult {
  report: RunReport;
  nodeId?: string;
}

const LOCK = '/run/lock/oac-node-installer';

const INSTALL_STEPS = [
  accountStep,
  groupStep,
  homeStep,
  programStep,
  prepareStep,
  envFileStep,
  unitStep,
  startStep,
] as Array<Step<InstallContext & RestartFlag, never>>;

/** What a terminal shows, in order: preflight, then every step, then the wait for Core. */
export const INSTALL_PHASES = [
  { id: 'preflight', title: 'Check the host, Core and the release' },
  ...INSTALL_STEPS.map((step) => ({ id: step.id, title: step.title })),
  { id: 'ready', title: 'Wait until Core reports the node connected and ready' },
];

export async function install(req: InstallRequest, emit: Emit): Promise<InstallResult> {
  const host = new Host(req.root);
  let release;
  try {
    release = await lockFile(host.path(LOCK), { waitMs: 10_000 });
  } catch (error) {
    if (error instanceof LockHeldError)
      throw new OacError('installer_busy', message('installer_busy'), {
        hint: hint('installer_busy'),
      });
    throw error;
  }
  try {
    const journal = await Journal.open(host, req.installationId, req.coreUrl);
    const ctx: InstallContext & RestartFlag = {
      host,
      options: req,
      journal,
      emit,
      token: req.token,
    };
    await preflight(ctx, await authFor(ctx));
    const steps = INSTALL_STEPS;
    const report = await runSteps(steps, ctx, { dryRun: req.dryRun, emit });
    if (req.dryRun) return { report };
    emit({
      type: 'step-start',
      step: 'ready',
      title: 'Wait until Core reports the node connected and ready',
    });
    const { nodeId } = await waitUntilReady(ctx, req.timeoutSeconds);
    return { report, nodeId };
  } finally {
    await release();
  }
}

/** A registered node reads its configuration with its own credential; a new one with the token. */
async function authFor(ctx: InstallContext): Promise<CoreAuth> {
  const identity = await readNodeIdentity(ctx.host, ctx.options.installationId);
  if (identity?.enrolled !== undefined)
    return { kind: 'node', nodeId: identity.node_id, credential: identity.credential };
  if (ctx.token === undefined)
    throw new OacError('token_missing', message('token_missing'), { hint: hint('token_missing') });
  return { kind: 'token', token: ctx.token };
}
