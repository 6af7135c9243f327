// The saved plan's file (DECL-05): written by root, 0600, atomically (a temp file beside it,
// renamed over); read back only as a regular file of root's that no one else can write, never
// through a final link, bounded in size and checked against its schema. Both ways the path is
// walked from `/` with descriptors, and every directory and link on the way must be root's
// alone (src/host/trusted-path.ts). Whoever else could write the file, or change what its path
// names, could make `apply` do what no one reviewed.
import { readRootOnlyFile, writeRootOnlyFile } from '../host/trusted-path.ts';
import { checkJsonWith } from '../json-file.ts';
import { oacError } from '../messages.ts';
import { savedPlanSchema, type SavedPlan } from './saved-plan.ts';

const MAX_PLAN_BYTES = 4 * 1024 * 1024;

export async function writePlanFile(path: string, plan: SavedPlan): Promise<void> {
  // Refused here already, not only by `apply`: a plan in such a directory could be swapped for
  // another of root's plans between its review and its apply.
  const failed = await writeRootOnlyFile(path, `${JSON.stringify(plan, null, 2)}\n`, 0o600);
  if (failed !== undefined) throw oacError('plan_file_invalid', { path, problem: failed.problem });
}

export async function readPlanFile(path: string): Promise<SavedPlan> {
  const read = await readRootOnlyFile(path, MAX_PLAN_BYTES);
  if ('problem' in read) throw oacError('plan_file_invalid', { path, problem: read.problem });
  const checked = checkJsonWith(read.bytes, savedPlanSchema);
  if ('problem' in checked)
    throw oacError('plan_file_invalid', {
      path,
      problem: `is not a plan of this installer: ${checked.problem}`,
    });
  return checked.data;
}
