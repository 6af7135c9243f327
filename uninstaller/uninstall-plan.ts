// The plan of an uninstall (issue #38): everything decided before the first removal. Core's
// answer to "is this node still listed" (UNI-01) is an input: while Core lists the node, or
// cannot be asked, the plan is made all the same and refused, so a dry run shows every step and
// the refusal. What stays and why (the store Core has not confirmed, what another
// installation's record wants, what uninstall never deletes) is decided here too; nothing here
// writes but the journal's in-memory copy. uninstaller/uninstall.ts applies it.
import { Journal, type JournalData } from '../records/journal.ts';
import { elsewhereOf } from '../records/elsewhere.ts';
import { proxyEnvForNode } from '../records/proxy-settings.ts';
import type { Emit } from '../src/core/events.ts';
import type { Refusal } from '../src/core/step.ts';
import { EXIT, isOacError } from '../src/errors.ts';
import type { Host } from '../src/host/host.ts';
import { readPasswd } from '../src/host/accounts.ts';
import { KEYS } from '../src/installation/desired.ts';
import { isOnHost, nameOf } from '../src/installation/kinds.ts';
import {
  readNodeIdentity,
  readNodeIdentityFor,
  readProviderImage,
} from '../src/installation/node-state.ts';
import { recordedResources, unrecordedShape } from '../src/installation/recorded.ts';
import { madePlan, planFor, type CommandPlan } from '../src/installation/plan-for.ts';
import type { RootContext } from '../src/installation/root-context.ts';
import { checkSavedPlan, digestOf, type MadePlan } from '../src/installation/saved-plan.ts';
import { BOOTSTRAP_DIR, NODE_USER, STORE_DIR, type Layout } from '../src/layout.ts';
import { oacError } from '../src/messages.ts';
import { CoreClient } from '../src/net/core-client.ts';
import { CoreError } from '../src/net/core-errors.ts';
import { pinOrigin } from '../src/net/core-pin.ts';
import { sharedDispatcher } from '../src/net/dispatcher.ts';
import type { InstallationRecordResource, Resource } from '../src/resources/resources.ts';
import type { UninstallRequest } from './uninstall.ts';
import { provableOwnership } from './unrecorded.ts';

export interface UninstallationPlan {
  journal: Journal;
  ctx: RootContext;
  /** The plan with nothing wanted (src/installation/plan-for.ts): the removals, in reverse
   *  order, with Core's refusal the first diagnostic when it refuses. */
  plan: CommandPlan;
  /** What stays whatever happens, and why (each a line of the summary). */
  kept: string[];
  /** The microsandbox store stays: Core has not confirmed the node gone (UNI-05). */
  storeStays: boolean;
  /** --plan-out or `apply`: the plan as saved. */
  saved: MadePlan | undefined;
}

export async function planUninstallation(
  host: Host,
  names: Layout,
  req: UninstallRequest,
  records: { journals: JournalData[]; mine: JournalData | undefined },
  emit: Emit,
): Promise<UninstallationPlan> {
  const { journals, mine } = records;
  // A registered node whose state went missing (its state still recorded) cannot be asked
  // about: its credential went with it.
  const lostNode =
    mine?.resources[KEYS.state] !== undefined ? (mine.registered_node ?? null) : null;
  const answer: CoreAnswer = req.force
    ? { asked: 'not asked' }
    : await askCore(host, names, lostNode, mine?.core_url);
  const { asked } = answer;
  const journal = await Journal.open(host, names.id, mine?.core_url ?? 'http://127.0.0.1');
  const kept: string[] = [];
  if (mine === undefined) {
    journal.inMemory();
    kept.push(...(await provableOwnership(host, names, journal)));
  }
  // Without a record, the whole shape is walked: what is proved ours goes, the account and
  // its home are named as kept, the rest is passed over.
  const resources =
    mine === undefined ? unrecordedShape(names) : recordedResources(names, journal.snapshot);
  const ctx = { host, layout: names, journal, emit };
  // UNI-05: Core confirmed now, or the node never registered and no earlier forced run left
  // a store behind whose node Core may still list.
  const coreConfirmed =
    asked === 'confirmed' ||
    (asked === 'never registered' && journal.get(KEYS.store)?.props.kept_unconfirmed !== true);
  const store = resources.find((r) => r.key === KEYS.store);
  const storeStays = !coreConfirmed && store !== undefined && (await isOnHost(store, ctx));
  // What another installation's record lists (the account, its group, the shared
  // directories) is still wanted there.
  const elsewhere = elsewhereOf(journals.filter((j) => j.installation_id !== names.id));
  const wantedElsewhere = (r: Resource) => elsewhere.wants(r.kind, nameOf(r));
  const keepReason = (r: Resource): string | undefined =>
    storeStays && r.key === KEYS.store ? storeDeleteHint(host) : undefined;
  kept.push(...(await keptAlways(host, names, journal)));
  const unrecordedReason = (r: Resource) =>
    mine === undefined && (r.key === KEYS.account || r.key === KEYS.home)
      ? 'no record shows the installer created it'
      : undefined;
  const keep = { keepReason, wantedElsewhere, unrecordedReason };
  // The plan with nothing wanted, decided once: shown, saved, compared with a saved one and
  // applied as it stands (nothing decided again between the check and the removals). Core's
  // refusal, if any, is its first diagnostic.
  const diagnostics = answer.refusal === undefined ? [] : [answer.refusal];
  // The plan's last step: the record removed, or kept with the store it marks (UNI-05).
  const record: InstallationRecordResource = {
    kind: 'installation-record',
    key: KEYS.record,
    title: "The installation's record",
    phase: 'account',
    path: names.journal,
    unit: names.unitName,
    keep: storeStays && journal.get(KEYS.store) !== undefined,
  };
  const inputs = { removals: resources, wanted: [record], keep, diagnostics };
  const planned = await planFor('uninstall', inputs, ctx, { signal: req.signal });
  let saved: MadePlan | undefined;
  if (req.planOut === true || req.savedPlan !== undefined) {
    // DECL-05: the plan with nothing applied, and what it was made from.
    const made = removalPlan(planned, {
      journals,
      asked,
      storeStays,
      kept,
      force: req.force,
    });
    if (req.savedPlan !== undefined) checkSavedPlan(req.savedPlan, made, journal.lastPlan);
    saved = made;
  }
  return { journal, ctx, plan: planned, kept, storeStays, saved };
}

/** The uninstall's plan as saved (DECL-05): its steps, and the digests of what it was made from:
 *  every record on the host (another installation's decides what stays), Core's answer, the
 *  store's fate, the kept lines and what each probe found. */
function removalPlan(
  planned: CommandPlan,
  inputs: {
    journals: JournalData[];
    asked: string;
    storeStays: boolean;
    kept: string[];
    force: boolean;
  },
): MadePlan {
  const records = inputs.journals.map(({ created_at: _c, updated_at: _u, ...rest }) => rest);
  return madePlan(planned, {
    journal: digestOf(records),
    core_answer: digestOf(inputs.asked),
    options: digestOf({ force: inputs.force }),
    kept: digestOf({ store_stays: inputs.storeStays, kept: inputs.kept }),
  });
}

function storeDeleteHint(host: Host): string {
  return `microVMs may still use it; check sudo pgrep -u ${NODE_USER}, then run sudo -u ${NODE_USER} rm -rf ${host.path(STORE_DIR)} and the uninstall command again to remove the account`;
}

/** What Core said of the node (UNI-01), and why the uninstall must not go on, if it must not. */
interface CoreAnswer {
  asked: string;
  refusal?: Refusal;
}

/** UNI-01: Core, at the enrolled address, must no longer accept the node's credential; a
 *  refusal when it still does, cannot be asked, or the credential is lost. */
async function askCore(
  host: Host,
  names: Layout,
  registeredNode: string | null,
  recordedCoreUrl: string | undefined,
): Promise<CoreAnswer> {
  try {
    return { asked: await coreAnswer(host, names, registeredNode, recordedCoreUrl) };
  } catch (error) {
    if (!isOacError(error) || error.exitCode !== EXIT.failure) throw error;
    const { code, message, hint } = error;
    return { asked: code, refusal: { code, message, ...(hint === undefined ? {} : { hint }) } };
  }
}

async function coreAnswer(
  host: Host,
  names: Layout,
  registeredNode: string | null,
  /** The Core the record names (root's): the identity, the node account's file, must name it. */
  recordedCoreUrl: string | undefined,
): Promise<'confirmed' | 'never registered'> {
  const identity =
    recordedCoreUrl === undefined
      ? await readNodeIdentity(host, names)
      : await readNodeIdentityFor(host, names, recordedCoreUrl);
  if (identity === undefined && registeredNode !== null) {
    // Registered, and its credential lost with its state: Core cannot be asked.
    const values = { node_id: registeredNode, dir: names.stateDir, id: names.id };
    throw oacError('node_state_lost', values);
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
    throw oacError('core_gone', { origin: identity.core_url, reason });
  }
  throw oacError('core_still_lists');
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
  for (const dir of await bootstrapDirs(host))
    lines.push(
      `the downloaded installers in ${dir}: remove them with sudo rm -rf ${shellWord(dir)}`,
    );
  return lines;
}

/** A path as one shell word: bare when it is plain, single-quoted otherwise (a home directory
 *  with a space must not make `rm -rf` remove two other trees). */
function shellWord(path: string): string {
  return /^[A-Za-z0-9._/@%+=,:-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/** Issue #39: the pasted line's kept installers, where they are: in root's home and in the home
 *  of the account that ran sudo (the line keeps them in the home of whoever pasted it). Only
 *  what is there is named; a home elsewhere is not searched. */
async function bootstrapDirs(host: Host): Promise<string[]> {
  const users = new Set(['root', process.env.SUDO_USER ?? 'root']);
  const homes = (await readPasswd(host).catch(() => []))
    .filter((u) => users.has(u.name) && u.home.startsWith('/'))
    .map((u) => `${u.home === '/' ? '' : u.home}/${BOOTSTRAP_DIR}`);
  const found: string[] = [];
  for (const dir of new Set(homes))
    if ((await host.lstat(dir))?.isDirectory() === true) found.push(dir);
  return found;
}
