// The journal: /etc/oac-node/<installation-id>.json records the inputs an install applied and,
// per resource, what the installer found: `owned` (a run of this installation created it) or
// `adopted` (it was there; never removed), with the properties status compares (DECL-02). Intent
// is written before each creation (`intended`), so a run killed at any point can be rerun or
// uninstalled: an intended resource that exists was made by us. Written atomically, root-only,
// zod-validated on every read; a journal of format 1 (before #10) is migrated when read.
import * as z from 'zod';
import { OacError } from '../src/errors.ts';
import { oacError } from '../src/messages.ts';
import { parseJsonWith } from '../src/json-file.ts';
import { readdir } from '../src/host/dir.ts';
import { DigestIndex, digestRecordSchema } from '../src/host/digest-index.ts';
import { isCode } from '../src/host/files.ts';
import type { Host } from '../src/host/host.ts';
import { JOURNAL_DIR, journalIds, layout, type InstallationId } from '../src/layout.ts';
import { migrateFormat1 } from './journal-format1.ts';
import { journalPoint } from '../src/host/journal-points.ts';

const prop = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** One resource's record (src/installation/previous-program.ts keeps one as it was). */
export const JOURNAL_RESOURCE = z.object({
  kind: z.enum(['account', 'membership', 'directory', 'file', 'unit', 'service', 'network']),
  name: z.string().min(1),
  ownership: z.enum(['intended', 'owned', 'adopted']),
  /** What status compares: digests, modes (never content or secrets). */
  props: z.record(z.string(), prop).default({}),
});
export type JournalResource = z.infer<typeof JOURNAL_RESOURCE>;
export type Ownership = JournalResource['ownership'];

const inputs = z.object({
  provider: z.enum(['docker', 'microsandbox']).nullable(),
  group: z
    .string()
    .regex(/^[a-z_][a-z0-9_-]{0,31}$/)
    .nullable(),
  checkpoint_root: z.string().startsWith('/').nullable(),
});
export type JournalInputs = z.infer<typeof inputs>;

export const lastRunSchema = z.object({
  at: z.string(),
  run: z.enum(['install', 'rerun', 'upgrade', 'downgrade', 'roll back']),
  /** The program's version after the run (what the service runs). */
  version: z.string().nullable(),
  /** Before an upgrade or a roll back: the version it replaced. */
  from: z.string().nullable(),
  outcome: z.enum(['done', 'failed']),
});
export type LastRun = z.infer<typeof lastRunSchema>;

/** The record format this installer reads and writes (format 1 is migrated when read). */
const FORMAT = 2;
/** For `oac-node version` (src/cli/commands/version.ts). */
export const JOURNAL_FORMAT = FORMAT;
/** A record of a format this installer does not know yet: a newer installer wrote it. */
const newerFormat = z.object({ format: z.number().int().gt(FORMAT) });

const journalSchema = z.object({
  format: z.literal(FORMAT),
  installation_id: z.string().min(1),
  core_url: z.string().url(),
  created_at: z.string(),
  updated_at: z.string(),
  inputs,
  /** The node this installation registered (set once Core accepted it): a later run that
   *  finds no node state knows it was lost, not never made (the guide: a recovery incident). */
  registered_node: z.string().nullable().default(null),
  resources: z.record(z.string(), JOURNAL_RESOURCE),
  /** Root's files hashed by a run (the installer itself, the node program), with their stamps:
   *  a cache (src/host/digest-index.ts), so a rerun need not read them again (issue #13). */
  digests: digestRecordSchema.default({}),
  /** DECL-05: the digest of the last saved plan applied (src/installation/saved-plan.ts): applying
   *  the same file again is refused as stale. */
  last_plan: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** Issue #39: the last run that changed the host, for status (added within format 2: an
   *  older installer of this format reads past it). */
  last_run: lastRunSchema.optional(),
});
export type JournalData = z.infer<typeof journalSchema>;

export async function readJournal(
  host: Host,
  id: InstallationId,
): Promise<JournalData | undefined> {
  return (await loadJournal(host, id))?.data;
}

async function loadJournal(
  host: Host,
  id: InstallationId,
): Promise<{ data: JournalData; migrated: boolean } | undefined> {
  const path = layout(id).journal;
  // Root-only directory, but never through a link all the same (SEC-06).
  const raw = await host.readNoFollow(path).catch((error: unknown) => {
    // A link (ELOOP) or a directory (EISDIR) where the record belongs: one line, no stack.
    if (isCode(error, 'ELOOP') || isCode(error, 'EISDIR')) throw damaged(host, path);
    throw error;
  });
  if (raw === undefined) return undefined;
  // UPG-01: a newer installer's record is never read as damaged, nor rewritten in this format.
  const newer = parseJsonWith(raw, newerFormat);
  if (newer !== undefined)
    throw oacError('journal_newer', { path: host.path(path), format: newer.format, ours: FORMAT });
  const current = parseJsonWith(raw, journalSchema);
  const data = current ?? migrateFormat1(raw, journalSchema);
  if (data === undefined || data.installation_id !== id) throw damaged(host, path);
  return { data, migrated: current === undefined };
}

function damaged(host: Host, path: string): OacError {
  return oacError('journal_damaged', { path: host.path(path) });
}

/** Every installation recorded on this host (HOST-10: one Core per host). */
export async function listJournals(host: Host): Promise<JournalData[]> {
  const ids = journalIds(await readdir(host, JOURNAL_DIR));
  const journals = await Promise.all(ids.map((id) => readJournal(host, id)));
  return journals.filter((j): j is JournalData => j !== undefined);
}

export class Journal {
  /** Root's digest cache, kept in this journal; written with its next save. */
  readonly digests: DigestIndex;

  private constructor(
    private readonly host: Host,
    private readonly id: InstallationId,
    private data: JournalData,
    /** Whether data differs from the file (a migrated or a new journal). */
    private dirty: boolean,
    /** False for a journal held only for this run (uninstall without a record). */
    private persist = true,
  ) {
    this.digests = new DigestIndex(data.digests);
  }

  /** Writes the digest cache if this run changed it, and only into a journal that records
   *  something (a cache alone is no installation). A cache: failing to write it fails nothing
   *  (and never hides the run's own error). */
  async saveDigests(): Promise<void> {
    if (Object.keys(this.data.resources).length === 0) return;
    if (await this.digests.changed()) await this.save('digests').catch(() => undefined);
  }

  /** Keeps this journal in memory only: an uninstall without a record must not leave a
   *  placeholder record behind if it is killed (it would count as another installation). */
  inMemory(): void {
    this.persist = false;
  }

  static async open(
    host: Host,
    id: InstallationId,
    coreUrl: string,
    now = new Date(),
  ): Promise<Journal> {
    const existing = await loadJournal(host, id);
    if (existing !== undefined) return new Journal(host, id, existing.data, existing.migrated);
    const stamp = now.toISOString();
    const data: JournalData = {
      format: FORMAT,
      installation_id: id,
      core_url: coreUrl,
      created_at: stamp,
      updated_at: stamp,
      inputs: { provider: null, group: null, checkpoint_root: null },
      registered_node: null,
      resources: {},
      digests: {},
    };
    return new Journal(host, id, data, false);
  }

  /** A journal already read (status: read-only, never saved). */
  static of(host: Host, id: InstallationId, data: JournalData): Journal {
    return new Journal(host, id, structuredClone(data), false, false);
  }

  get snapshot(): JournalData {
    return structuredClone(this.data);
  }

  get inputs(): JournalInputs {
    return this.data.inputs;
  }

  get registeredNode(): string | null {
    return this.data.registered_node;
  }

  /** Records the node Core accepted (written at once: it outlives a crash after it); null once
   *  an uninstall has settled it with Core (confirmed, or --force). */
  async setRegisteredNode(nodeId: string | null): Promise<void> {
    if (this.data.registered_node === nodeId) return;
    this.data.registered_node = nodeId;
    await this.save('registered-node');
  }

  /** Issue #39: notes the run that changed the host (a run that changed nothing writes
   *  nothing: RERUN-01). */
  async setLastRun(run: LastRun): Promise<void> {
    this.data.last_run = run;
    await this.save('last-run');
  }

  get lastPlan(): string | null {
    return this.data.last_plan ?? null;
  }

  async setLastPlan(digest: string): Promise<void> {
    if (this.data.last_plan === digest) return;
    this.data.last_plan = digest;
    await this.save('applied-plan');
  }

  get(key: string): JournalResource | undefined {
    return this.data.resources[key];
  }

  /** The inputs this run applies (written with the next entry, or now when they changed). */
  async setInputs(next: JournalInputs): Promise<void> {
    if (JSON.stringify(next) === JSON.stringify(this.data.inputs)) return;
    this.data.inputs = next;
    if (Object.keys(this.data.resources).length > 0) await this.save('inputs');
  }

  /** Written before the creation it announces (also over an adopted resource that is gone:
   *  what this run makes is ours). */
  async intend(key: string, kind: JournalResource['kind'], name: string): Promise<void> {
    const known = this.data.resources[key];
    if (known?.ownership === 'owned' || known?.ownership === 'intended') return;
    await this.put(key, { kind, name, ownership: 'intended', props: known?.props ?? {} }, 'intend');
  }

  /** Several intents in one write, labelled `intend:<key>+<key>…` (those not already owned or
   *  intended): the node half's resources, all made by the one child it runs, so one write
   *  announces them all (and the crash matrix has one point for them, not one per resource). */
  async intendAll(entries: Array<{ key: string; kind: JournalResource['kind']; name: string }>) {
    const fresh = entries.filter(({ key }) => {
      const known = this.data.resources[key]?.ownership;
      return known !== 'owned' && known !== 'intended';
    });
    const puts = fresh.map(({ key, kind, name }) => ({
      key,
      entry: {
        kind,
        name,
        ownership: 'intended' as const,
        props: this.data.resources[key]?.props ?? {},
      },
    }));
    await this.putAll(puts, 'intend');
  }

  /** Several records in one write, labelled `record:<key>+<key>…` (those that differ). */
  async recordAll(entries: Array<{ key: string; entry: JournalResource }>): Promise<void> {
    await this.putAll(
      entries.filter(({ key, entry }) => this.differs(key, entry)),
      'record',
    );
  }

  async record(key: string, entry: JournalResource): Promise<void> {
    if (this.differs(key, entry)) await this.put(key, entry, 'record');
  }

  /** A rerun writes nothing (unless this journal was just migrated). */
  private differs(key: string, entry: JournalResource): boolean {
    const known = this.data.resources[key];
    return this.dirty || known === undefined || JSON.stringify(known) !== JSON.stringify(entry);
  }

  /** Holds an entry for this run without writing it (uninstall's proofs when the record is
   *  gone: the first removal writes what is left). */
  remember(key: string, entry: JournalResource): void {
    this.data.resources[key] = entry;
  }

  async forget(key: string): Promise<void> {
    if (!(key in this.data.resources)) return;
    delete this.data.resources[key];
    await this.save(`forget:${key}`);
  }

  private async put(key: string, entry: JournalResource, why: 'intend' | 'record'): Promise<void> {
    this.data.resources[key] = entry;
    await this.save(`${why}:${key}`);
  }

  private async putAll(
    puts: Array<{ key: string; entry: JournalResource }>,
    why: 'intend' | 'record',
  ): Promise<void> {
    if (puts.length === 0) return;
    for (const { key, entry } of puts) this.data.resources[key] = entry;
    await this.save(`${why}:${puts.map(({ key }) => key).join('+')}`);
  }

  /** `label` names the write for the crash matrix's hooks (src/host/journal-points.ts). */
  private async save(label: string): Promise<void> {
    if (!this.persist) return;
    const after = journalPoint(label);
    this.data.updated_at = new Date().toISOString();
    const digests = await this.digests.entries();
    this.data.digests = digests;
    await this.host.ensureDirectory(JOURNAL_DIR, 0o700);
    await this.host.writeFile(
      layout(this.id).journal,
      `${JSON.stringify(this.data, null, 2)}\n`,
      0o600,
    );
    this.dirty = false;
    this.digests.saved(digests);
    after();
  }
}
