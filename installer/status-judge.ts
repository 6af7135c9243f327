// How status says one planned step (issue #38: one function for root's steps and the node
// half's): present, missing or drifted, with what to do. A step a rerun would change is drift a
// rerun repairs; one a rerun would refuse, or leaves alone for a reason a rerun does not change,
// says that reason and the refusal's hints instead.
import { changes, type Action } from '../src/core/step.ts';
import type { JournalResource } from '../records/journal.ts';
import type { ResourceStatus } from './status-node-half.ts';

const RERUN = 'rerun the install command to restore it';

type Found = Pick<ResourceStatus, 'state' | 'detail'>;

export function judgeStep(
  action: Action,
  o: { ownership?: JournalResource['ownership']; advice?: string } = {},
): Found {
  if (o.ownership === 'intended')
    return {
      state: 'drifted',
      detail: 'a run stopped before recording it; rerun the install command to finish',
    };
  // What a rerun would refuse (a foreign account, a file where a directory belongs): drift the
  // operator resolves, named by the refusal's own line.
  if (action.kind === 'refuse') return { state: 'drifted', detail: withHints(action) };
  // A step left alone for a reason a rerun does not change (a service whose unit is masked,
  // a network Docker cannot be asked about): the reason, with no rerun to send the operator to.
  if (action.kind === 'skip' && action.why !== undefined)
    return { state: 'drifted', detail: action.why };
  if (!changes(action) && action.why === undefined) return { state: 'present' };
  const why = action.why ?? action.detail;
  const advice = action.kind === 'create' ? o.advice : undefined;
  if (advice !== undefined) return { state: 'drifted', detail: `${why}: ${advice}, or ${RERUN}` };
  return { state: action.kind === 'create' ? 'missing' : 'drifted', detail: `${why}: ${RERUN}` };
}

/** A refusal's line and what the operator does about it (its hint), as a rerun would say them. */
function withHints(action: Action): string {
  const hints = (action.refusals ?? []).flatMap((r) => (r.hint === undefined ? [] : [r.hint]));
  return [action.detail, ...hints].join('. ');
}
