// The desired state a journal recorded (DECL-01): the installation's resource shape for the
// recorded inputs, limited to the resources the journal lists, with the properties it kept
// (digests, modes). Status diffs these against the host; uninstall removes them.
import type { JournalData } from '../../records/journal.ts';
import type { Layout } from '../layout.ts';
import { KEYS, resourceShape } from './desired.ts';
import type { RootResource } from './root-context.ts';
import { kindOf } from './kinds.ts';
import type { z } from 'zod';
import type { Props } from '../resources/kind.ts';

const MEMBERSHIP_PREFIX = KEYS.membership('');

export function recordedResources(layout: Layout, journal: JournalData): RootResource[] {
  // Every provider's shape, not the latest inputs': a resource recorded under other inputs (a
  // never-registered node whose Core switched provider) is still listed, so it can be removed.
  const groups = Object.keys(journal.resources).flatMap((key) =>
    key.startsWith(MEMBERSHIP_PREFIX) ? [key.slice(MEMBERSHIP_PREFIX.length)] : [],
  );
  const shape = withPreviousProgram(layout, resourceShape(layout, { provider: undefined, groups }));
  return shape.flatMap((r): RootResource[] => {
    const entry = journal.resources[r.key];
    if (entry === undefined) return [];
    const kept = keptProps(kindOf(r).schemas.recorded, entry.props);
    return [kindOf(r).fromRecord(r, kept) as RootResource];
  });
}

/** What the record kept, as its kind keeps it: a damaged property is not taken (compared as
 *  unknown), rather than read as something it is not; the others are. */
function keptProps(schema: z.ZodType<Props>, props: Props): Props {
  const whole = schema.safeParse(props);
  if (whole.success) return whole.data;
  const damaged = new Set(whole.error.issues.map((issue) => String(issue.path[0])));
  const rest = schema.safeParse(
    Object.fromEntries(Object.entries(props).filter(([key]) => !damaged.has(key))),
  );
  return rest.success ? rest.data : {};
}

/** UPG-02: the program an upgrade replaced, kept until the new one is ready: recorded (as the
 *  file it is) while an upgrade is under way (or a run was killed in one), so status shows it
 *  and uninstall removes it before the program's directory. An install plans its keep as a step
 *  of its own (src/installation/previous-program.ts). */
export function withPreviousProgram(layout: Layout, shape: RootResource[]): RootResource[] {
  const at = shape.findIndex((r) => r.key === KEYS.program);
  const kept: RootResource = {
    kind: 'file',
    key: KEYS.previousProgram,
    phase: 'program',
    title: 'Node program kept during an upgrade',
    path: layout.previousProgram,
    mode: 0o755,
  };
  return [...shape.slice(0, at + 1), kept, ...shape.slice(at + 1)];
}

/** Everything uninstall may find of an installation it has no record of: every provider's
 *  shape, and the program an interrupted upgrade kept (a file in the installation's own
 *  root-only directory, provable as the program is). */
export function unrecordedShape(layout: Layout): RootResource[] {
  return withPreviousProgram(
    layout,
    resourceShape(layout, { provider: undefined, groups: undefined }),
  );
}
