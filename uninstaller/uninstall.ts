// `oac-node uninstall`: first asks Core, at the address the node enrolled with, whether the
// node was removed, and refuses while Core still lists it (UNI-01; --force skips the question);
// then reconciles with nothing wanted: in reverse order, the drivers remove what the journal
// says this installation created, and the summary lists what was kept (UNI-02…06). It can be
// rerun until it completes.
import { Journal, listJournals } from '../records/journal.ts';
import { withInstallerLock } from '../records/lock.ts';
import { KEYS, resourceShape } from '../src/engine/desired.ts';
import { directoryDriver } from '../src/engine/drivers/directory.ts';
import type { Emit } from '../src/engine/events.ts';
import { readNodeIdentity, readProviderImage } from '../src/engine/node-state.ts';
import { pinOrigin } from '../src/net/core-pin.ts';
import { recordedResources } from '../src/engine/recorded.ts';
import { removeAll } from '../src/engine/remove.ts';
import type { Resource } from '../src/engine/resources.ts';
import type { RunReport } from '../src/engine/reconcile.ts';
import { OacError } from '../src/errors.ts';
import { Host } from '../src/host/host.ts';
import { forgetUnit } from '../src/host/systemd.ts';
import {
  JOURNAL_DIR,
  NODE_USER,
  PROVIDER_GROUPS,
  STORE_DIR,
  layout,
  type InstallationId,
  type Layout,
} from '../src/layout.ts';
import { hint, message } from '../src/messages.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { CoreError } from '../src/net/core-errors.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import { proxyEnvForNode } from '../records/proxy-settings.ts';
import { provableOwnership } from './provable.ts';

export interface UninstallRequest {
  root: string;
  installationId: InstallationId;
  force: boolean;
  dryRun: boolean;
  /** OPS-03: an interrupted uninstall stops between two resources; a rerun finishes it. */
  signal?: AbortSignal;
}

/** What every installation on the host shares: they stay while another installation remains. */
const SHARED = new Set<string>([
  KEYS.account,
  ...Object.values(PROVIDER_GROUPS).map((group: string) => KEYS.membership(group)),
  KEYS.home,
  KEYS.programRoot,
  ...KEYS.nodeDirs,
  KEYS.store,
]);
/** What holds or owns the microsandbox store: they stay while it stays (UNI-05). */
const STORE_HOLDERS = new Set<string>([KEYS.account, KEYS.home, ...KEYS.nodeDirs]);

export async function uninstall(
  req: UninstallRequest,
  emit: Emit,
): Promise<{ report: RunReport; kept: string[] }> {
  const host = new Host(req.root);
  const names = layout(req.installationId);
  return withInstallerLock(host, async () => {
    const journals = await listJournals(host);
    const mine = journals.find((j) => j.installation_id === req.installationId);
    // A registered node whose state went missing (its state still recorded) cannot be asked
    // about: its credential went with it.
    const lostNode =
      mine?.resources[KEYS.state] !== undefined ? (mine.registered_node ?? null) : null;
    const asked = req.force ? 'not asked' : await askCore(host, names, lostNode);
    const journal = await Journal.open(host, names.id, mine?.core_url ?? 'http://127.0.0.1');
    // Settled with Core (or forced): a rerun of an unfinished uninstall, or an install after
    // one, is no lost state.
    if (mine !== undefined && !req.dryRun) await journal.setRegisteredNode(null);
    const kept: string[] = [];
    if (mine === undefined) {
      journal.inMemory();
      kept.push(...(await provableOwnership(host, names, journal)));
    }
    // Without a record, the whole shape is walked: what is proved ours goes, the account and
    // its home are named as kept, the rest is passed over.
    const resources =
      mine === undefined
        ? resourceShape(names, { provider: undefined, groups: undefined })
        : recordedResources(names, journal.snapshot);
    const ctx = { host, layout: names, journal, emit };
    // UNI-05: Core confirmed now, or the node never registered and no earlier forced run left
    // a store behind whose node Core may still list.
    const coreConfirmed =
      asked === 'confirmed' ||
      (asked === 'never registered' && journal.get(KEYS.store)?.props.kept_unconfirmed !== true);
    const store = resources.find((r) => r.key === KEYS.store);
    const storeStays =
      !coreConfirmed &&
      store?.kind === 'directory' &&
      directoryDriver.exists(await directoryDriver.probe(store, ctx));
    const others = journals.length - (mine ? 1 : 0);
    const keepReason = (r: Resource): string | undefined => {
      if (others > 0 && SHARED.has(r.key)) return "another installation's node remains";
      if (storeStays && r.key === KEYS.store) return storeDeleteHint(host);
      if (storeStays && STORE_HOLDERS.has(r.key))
        return r.key === KEYS.account
          ? 'it owns the kept store; rerun to finish'
          : 'it holds the kept store';
      return undefined;
    };
    kept.push(...(await keptAlways(host, names, journal)));
    const unrecordedReason = (r: Resource) =>
      mine === undefined && (r.key === KEYS.account || r.key === KEYS.home)
        ? 'no record shows the installer created it'
        : undefined;
    const report = await removeAll(resources, ctx, {
      dryRun: req.dryRun,
      emit,
      keepReason,
      unrecordedReason,
      signal: req.signal,
    });
    for (const step of report.steps) if (step.action.kind === 'keep') kept.push(step.action.detail);
    if (!req.dryRun) await finish(host, names, journal, storeStays);
    return { report, kept };
  });
}

/** The journal stays with what is left while the store stays, so the rerun after the store's
 *  deletion finishes; otherwise it goes, and the records directory with the last of them. */
async function finish(host: Host, names: Layout, journal: Journal, storeStays: boolean) {
  const store = journal.get(KEYS.store);
  if (storeStays && store !== undefined) {
    await journal.record(KEYS.store, {
      ...store,
      props: { ...store.props, kept_unconfirmed: true },
    });
    return;
  }
  // A run killed between removing the unit file and reloading systemd left it loaded.
  await forgetUnit(host, names.unitName);
  await host.unlinkFile(names.journal);
  await host.removeEmptyDirectory(JOURNAL_DIR);
}

function storeDeleteHint(host: Host): string {
  return `microVMs may still use it; check sudo pgrep -u ${NODE_USER}, then run sudo -u ${NODE_USER} rm -rf ${host.path(STORE_DIR)} and the uninstall command again to remove the account`;
}

/** UNI-01: Core, at the enrolled address, must no longer accept the node's credential. */
async function askCore(
  host: Host,
  names: Layout,
  registeredNode: string | null,
): Promise<'confirmed' | 'never registered'> {
  const identity = await readNodeIdentity(host, names);
  if (identity === undefined && registeredNode !== null) {
    // Registered, and its credential lost with its state: Core cannot be asked.
    const values = { node_id: registeredNode, dir: names.stateDir, id: names.id };
    throw new OacError('node_state_lost', message('node_state_lost', values), {
      hint: hint('node_state_lost', values),
    });
  }
  if (identity === undefined) return 'never registered'; // nothing Core knows
  // TRUST-01: the credential goes only to the key the node trusts.
  pinOrigin(identity.core_url, identity.core_pin);
  const client = new CoreClient({
    // Through the proxy the node was installed with, unless the caller gives one.
    dispatcher: sharedDispatcher(await proxyEnvForNode(host, names)),
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
async function keptAlways(host: Host, names: Layout, journal: Journal): Promise<string[]> {
  const lines: string[] = [];
  // A microsandbox node's image lives in its store, which goes with the store (UNI-05).
  const provider = await readProviderImage(host, names);
  if (provider?.image !== undefined)
    lines.push(
      `the Runtime image ${provider.image}: remove it with sudo docker image rm ${provider.image}`,
    );
  else if (provider !== undefined)
    // SEC-09: the provider file names no valid image reference; the hint names none either.
    lines.push(
      "the Runtime image (the provider file's name for it is not an image reference): find it with sudo docker image ls",
    );
  const shared = journal.inputs.checkpoint_root;
  if (shared !== null)
    lines.push(
      `the shared checkpoint store ${shared} (it was mounted for the node, not made by it)`,
    );
  lines.push(
    'the downloaded installers in ~/.oac/node-bootstrap: remove them with rm -rf ~/.oac/node-bootstrap',
  );
  return lines;
}
