// `status`, the node half's part (issue #23, #38): the node step of status's own refresh-only
// plan (installer/status.ts), planned as install plans it: the installed program runs its dry
// run as oac-node (HOST-08) for the configuration the node serves and the node's recorded
// inputs (src/installation/installed-node.ts). Each of its steps that would change something is
// drift (a Runtime image removed from Docker, a microsandbox file damaged …). Root never reads
// the node's files itself for this.
import type { JournalResource } from '../records/journal.ts';
import { KEYS } from '../src/installation/desired.ts';
import type { Plan } from '../src/installation/root-plan.ts';
import type { ActionPart } from '../src/core/step.ts';
import type { Resource } from '../src/resources/resources.ts';
import { judgeStep } from './status-judge.ts';

/** One resource as status reports it (root's or the node half's). */
export interface ResourceStatus {
  key: string;
  kind: Resource['kind'];
  name: string;
  ownership: JournalResource['ownership'];
  /** present: as the installer left it; missing: gone; drifted: there, but changed. */
  state: 'present' | 'missing' | 'drifted';
  /** For missing or drifted: what differs and what to do. */
  detail?: string;
}

export interface NodeHalfStatus {
  /** checked: its plan was made; unknown: it could not be (detail says why). */
  state: 'checked' | 'unknown';
  detail?: string;
  resources: ResourceStatus[];
}

/** The node step's plan in a refresh-only plan: one row per step of the node half. */
export function nodeHalfOf(planned: Plan): NodeHalfStatus {
  const parts = planned.steps.find((s) => s.resource.key === KEYS.node)?.action.parts;
  if (parts === undefined) return unknownNodeHalf('the node program is not installed');
  return { state: 'checked', resources: parts.map(statusOf) };
}

export function unknownNodeHalf(detail: string): NodeHalfStatus {
  return { state: 'unknown', detail, resources: [] };
}

/** One step of the node half's plan as status reports it: what would change is drift. */
function statusOf({ step, title, action }: ActionPart): ResourceStatus {
  return {
    key: `node:${step}`,
    kind: 'node',
    name: title,
    ownership: 'owned',
    ...judgeStep(action),
  };
}
