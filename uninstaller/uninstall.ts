// `oac-node uninstall`: first asks Core, at the address the node enrolled with, whether the
// node was removed, and refuses while Core still lists it (UNI-01; --force skips the question);
// then removes, in reverse order, what the journal says the installer created, and lists what
// it removed and what it kept (UNI-02…06). It can be rerun until it completes.
import { stateDir } from '../installer/context.ts';
import { JOURNAL_DIR, Journal, journalPath, listJournals } from '../records/journal.ts';
import { readdir } from '../src/host/dir.ts';
import * as z from 'zod';
import { readNodeIdentity } from '../installer/wait-ready.ts';
import { parseJsonWith } from '../src/json-file.ts';
import type { Emit } from '../src/engine/events.ts';
import { runSteps, type RunReport } from '../src/engine/runner.ts';
import type { Step } from '../src/engine/step.ts';
import { OacError } from '../src/errors.ts';
import { Host } from '../src/host/host.ts';
import { LockHeldError, lockFile } from '../src/host/lock.ts';
import { hint, message } from '../src/messages.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import { CoreError } from '../src/net/core-errors.ts';
import { accountStep, groupStep, homeStep } from './account.ts';
import type { UninstallContext } from './context.ts';
import { networkStep, programStep, stateStep } from './node-files.ts';
import { envFileStep, serviceStep, unitFileStep } from './service.ts';
import { adoptProvable } from './provable.ts';
import { nodeDirsStep, storeStep } from './store.ts';

export interface UninstallRequest {
  root: string;
  installationId: string;
  force: boolean;
  dryRun: boolean;
}

const STEPS = [
  serviceStep,
  unitFileStep,
  envFileStep,
  networkStep,
  stateStep,
  storeStep,
  nodeDirsStep,
  programStep,
  groupStep,
  homeStep,
  accountStep,
] as Array<Step<UninstallContext, never>>;

export async function uninstall(
  req: UninstallRequest,
  emit: Emit,
): Promise<{ report: RunReport; kept: string[] }> {
  const host = new Host(req.root);
  const release = await lockFile(host.path('/run/lock/oac-node-installer'), {
    waitMs: 10_000,
  }).catch((error: unknown) => {
    if (error instanceof LockHeldError)
      throw new OacError('installer_busy', message('installer_busy'), {
        hint: hint('installer_busy'),
      });
    throw error;
  });
  try {
    const journals = await listJournals(host);
    const mine = journals.find((j) => j.installation_id === req.installationId);
    const asked = req.force ? 'not asked' : await askCore(host, req.installationId);
    const journal = await Journal.open(
      host,
      req.installationId,
      mine?.core_url ?? 'http://127.0.0.1',
    );
    const kept: string[] = [];
    const ctx: UninstallContext = {
      host,
      installationId: req.installationId,
      journal,
      emit,
      otherInstallations: journals.length - (mine ? 1 : 0),
      kept,
      coreConfirmed: false,
      recordMissing: mine === undefined,
    };
    // UNI-05: Core confirmed now, or the node never registered and no earlier forced run left
    // a store behind whose node Core may still list.
    ctx.coreConfirmed =
      asked === 'confirmed' ||
      (asked === 'never registered' && journal.get('store')?.detail.kept_unconfirmed !== true);
    kept.push(...(await keptAlways(host, req.installationId, journal)));
    if (mine === undefined) kept.push(...(await adoptProvable(host, req.installationId, journal)));
    const report = await runSteps(STEPS, ctx, { dryRun: req.dryRun, emit });
    for (const step of report.steps) if (step.action.kind === 'keep') kept.push(step.action.detail);
    const storeKept = report.steps.some((s) => s.step === 'store' && s.action.kind === 'keep');
    if (!req.dryRun && storeKept) {
      // The journal stays with what is left, so the rerun after the store's deletion finishes.
      const store = journal.get('store');
      if (store !== undefined)
        await journal.record('store', {
          ...store,
          detail: { ...store.detail, kept_unconfirmed: true },
        });
    } else if (!req.dryRun) {
      await host.remove(journalPath(req.installationId));
      // The records directory goes with the last installation it recorded.
      if ((await readdir(host, JOURNAL_DIR)).length === 0) await host.remove(JOURNAL_DIR);
    }
    return { report, kept: ctx.kept };
  } finally {
    await release();
  }
}

/** UNI-01: Core, at the enrolled address, must no longer accept the node's credential. */
async function askCore(
  host: Host,
  installationId: string,
): Promise<'confirmed' | 'never registered'> {
  const identity = await readNodeIdentity(host, installationId);
  if (identity === undefined) return 'never registered'; // nothing Core knows
  const client = new CoreClient({
    dispatcher: sharedDispatcher(),
    coreUrl: identity.core_url,
    retry: { attempts: 2, baseDelayMs: 500, maxDelayMs: 1000 },
  });
  try {
    await client.identity(identity.node_id, identity.credential);
  } catch (error) {
    if (error instanceof CoreError && error.code === 'node_credential_refused') return 'confirmed';
    const reason = error instanceof Error ? error.message : String(error);
    throw new OacError('core_gone', message('core_gone', { origin: identity.core_url, reason }), {
      hint: hint('core_gone'),
    });
  }
  throw new OacError('core_still_lists', message('core_still_lists'), {
    hint: hint('core_still_lists'),
  });
}

/** UNI-04, UNI-06: what uninstall never deletes, with the command that does. */
async function keptAlways(host: Host, installationId: string, journal: Journal): Promise<string[]> {
  const lines: string[] = [];
  const raw = await host.readNoFollow(`${stateDir(installationId)}/provider.json`);
  const file = raw === undefined ? undefined : parseJsonWith(raw, imageOfProviderFile);
  // A microsandbox node's image lives in its store, which goes with the store (UNI-05).
  if (file?.provider === 'docker') {
    const image = file.adapter.image;
    lines.push(`the Runtime image ${image}: remove it with sudo docker image rm ${image}`);
  }
  const shared = journal.get('checkpoint-root');
  if (shared !== undefined)
    lines.push(
      `the shared checkpoint store ${shared.name} (it was mounted for the node, not made by it)`,
    );
  lines.push(
    'the downloaded installers in ~/.oac/node-bootstrap: remove them with rm -rf ~/.oac/node-bootstrap',
  );
  return lines;
}

const imageOfProviderFile = z.object({
  provider: z.string(),
  adapter: z.object({ image: z.string() }),
});
