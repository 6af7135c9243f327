// Journals of format 1 (written before issue #10) are read and migrated to format 2: the kinds
// get their new names, the provider and group become the recorded inputs, the checkpoint store
// an input instead of a resource, the program's digest a property; the program directories and
// the service, which format 1 did not list, take the ownership of the program and the unit
// they came with.
import * as z from 'zod';
import { parseJsonWith } from '../src/json-file.ts';

const format1 = z.object({
  format: z.literal(1),
  installation_id: z.string().min(1),
  core_url: z.string().url(),
  created_at: z.string(),
  updated_at: z.string(),
  resources: z.record(
    z.string(),
    z.object({
      kind: z.string(),
      name: z.string().min(1),
      ownership: z.enum(['intended', 'owned', 'adopted']),
      detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
    }),
  ),
});

const KINDS: Record<string, string> = {
  account: 'account',
  'group-membership': 'membership',
  directory: 'directory',
  file: 'file',
  unit: 'unit',
  'docker-network': 'network',
};

export function migrateFormat1<T>(raw: Buffer, schema: z.ZodType<T>): T | undefined {
  const old = parseJsonWith(raw, format1);
  if (old === undefined) return undefined;
  const resources: Record<string, unknown> = {};
  for (const [key, r] of Object.entries(old.resources)) {
    const kind = KINDS[r.kind];
    if (kind === undefined || key === 'checkpoint-root') continue;
    const props = propsOf(key, r.detail);
    resources[key] = { kind, name: r.name, ownership: r.ownership, props };
  }
  const program = old.resources.program;
  if (program !== undefined) {
    const dir = program.name.slice(0, program.name.lastIndexOf('/'));
    resources['directory:program'] = {
      kind: 'directory',
      name: dir,
      ownership: program.ownership,
      props: {},
    };
    resources['directory:program-root'] = {
      kind: 'directory',
      name: dir.slice(0, dir.lastIndexOf('/')),
      ownership: program.ownership,
      props: {},
    };
  }
  const unit = old.resources.unit;
  if (unit !== undefined)
    resources.service = {
      kind: 'service',
      name: unit.name.split('/').pop(),
      ownership: unit.ownership,
      props: {},
    };
  const group = Object.keys(old.resources).find((k) => k.startsWith('group-membership:'));
  const inputs = {
    provider:
      'store' in old.resources ? 'microsandbox' : 'network' in old.resources ? 'docker' : null,
    group: group === undefined ? null : group.slice('group-membership:'.length),
    checkpoint_root: old.resources['checkpoint-root']?.name ?? null,
  };
  const parsed = schema.safeParse({ ...old, format: 2, inputs, resources });
  return parsed.success ? parsed.data : undefined;
}

/** What format 1 kept that still matters: the program's digest, and a store kept by a forced
 *  uninstall whose removal Core has not confirmed (UNI-05). */
function propsOf(key: string, detail: Record<string, string | number | boolean>) {
  if (key === 'program' && typeof detail.sha256 === 'string') return { sha256: detail.sha256 };
  if (key === 'store' && detail.kept_unconfirmed === true) return { kept_unconfirmed: true };
  return {};
}
