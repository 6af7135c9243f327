// The journal: /etc/oac-node/<installation-id>.json records, per resource, whether the
// installer created it (`owned`) or found it (`adopted`). Intent is written before each change
// (`intended`), so a run killed at any point can be rerun or uninstalled: an intended resource
// that exists was made by us. Written atomically, root-only, zod-validated on every read.
import * as z from 'zod';
import { OacError } from '../src/errors.ts';
import { parseJsonWith } from '../src/json-file.ts';
import { readdir } from '../src/host/dir.ts';
import type { Host } from '../src/host/host.ts';

export const JOURNAL_DIR = '/etc/oac-node';

const resource = z.object({
  kind: z.enum([
    'account',
    'group-membership',
    'directory',
    'file',
    'unit',
    'docker-image',
    'docker-network',
    'node',
  ]),
  name: z.string().min(1),
  ownership: z.enum(['intended', 'owned', 'adopted']),
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
});
export type JournalResource = z.infer<typeof resource>;

const journalSchema = z.object({
  format: z.literal(1),
  installation_id: z.string().min(1),
  core_url: z.string().url(),
  created_at: z.string(),
  updated_at: z.string(),
  resources: z.record(z.string(), resource),
});
export type JournalData = z.infer<typeof journalSchema>;

export function journalPath(installationId: string): string {
  return `${JOURNAL_DIR}/${installationId}.json`;
}

export async function readJournal(
  host: Host,
  installationId: string,
): Promise<JournalData | undefined> {
  const raw = await host.readFile(journalPath(installationId));
  if (raw === undefined) return undefined;
  const data = parseJsonWith(raw, journalSchema);
  if (data === undefined) {
    throw new OacError(
      'journal_damaged',
      `The record ${host.path(journalPath(installationId))} is damaged; move it aside and run the command again`,
    );
  }
  return data;
}

/** Every installation recorded on this host (HOST-10: one Core per host). */
export async function listJournals(host: Host): Promise<JournalData[]> {
  const names = await readdir(host, JOURNAL_DIR);
  const ids = names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length));
  const journals = await Promise.all(ids.map((id) => readJournal(host, id)));
  return journals.filter((j): j is JournalData => j !== undefined);
}

export class Journal {
  private constructor(
    private readonly host: Host,
    private data: JournalData,
  ) {}

  static async open(
    host: Host,
    installationId: string,
    coreUrl: string,
    now = new Date(),
  ): Promise<Journal> {
    const existing = await readJournal(host, installationId);
    const stamp = now.toISOString();
    const data = existing ?? {
      format: 1 as const,
      installation_id: installationId,
      core_url: coreUrl,
      created_at: stamp,
      updated_at: stamp,
      resources: {},
    };
    return new Journal(host, data);
  }

  get snapshot(): JournalData {
    return structuredClone(this.data);
  }

  get(id: string): JournalResource | undefined {
    return this.data.resources[id];
  }

  /** Written before the change it announces. */
  async intend(id: string, kind: JournalResource['kind'], name: string): Promise<void> {
    const known = this.data.resources[id];
    if (known !== undefined && known.ownership !== 'intended') return;
    await this.put(id, { kind, name, ownership: 'intended', detail: known?.detail ?? {} });
  }

  async record(id: string, entry: JournalResource): Promise<void> {
    const known = this.data.resources[id];
    if (known !== undefined && JSON.stringify(known) === JSON.stringify(entry)) return; // a rerun writes nothing
    await this.put(id, entry);
  }

  /** Holds an entry for this run without writing it (uninstall's proofs when the record is
   *  gone: the first removal writes what is left). */
  remember(id: string, entry: JournalResource): void {
    this.data.resources[id] = entry;
  }

  async forget(id: string): Promise<void> {
    if (!(id in this.data.resources)) return;
    delete this.data.resources[id];
    await this.save();
  }

  private async put(id: string, entry: JournalResource): Promise<void> {
    this.data.resources[id] = entry;
    await this.save();
  }

  private async save(): Promise<void> {
    crashPoint('before');
    this.data.updated_at = new Date().toISOString();
    await this.host.ensureDirectory(JOURNAL_DIR, 0o700);
    await this.host.writeFile(
      journalPath(this.data.installation_id),
      `${JSON.stringify(this.data, null, 2)}\n`,
      0o600,
    );
    crashPoint('after');
  }
}

// The crash matrix of issue #5 (test/e2e/crash.test.ts): OAC_NODE_TEST_KILL_AT=before:N or
// after:N makes this process SIGKILL itself just before or just after the N-th journal write
// (1-based), the points where a power cut or kill -9 hurts most. Unset, it does nothing; it
// reads no secret and changes nothing but the moment the process dies.
const killAt = /^(before|after):([1-9]\d*)$/.exec(process.env.OAC_NODE_TEST_KILL_AT ?? '');
let writes = 0;

function crashPoint(when: 'before' | 'after'): void {
  if (killAt === null) return;
  if (when === 'before') writes += 1;
  if (killAt[1] === when && Number(killAt[2]) === writes) process.kill(process.pid, 'SIGKILL');
}
