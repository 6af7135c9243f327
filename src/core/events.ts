// Steps never print: they emit events, and src/ui renders them as listr2 phases, plain lines or
// NDJSON (docs/architecture.md). Every event passes the redactor before it is rendered.
// Issue #38: each event's shape is defined here once, as a zod schema; the `--json` contract
// (src/cli/json-schemas.ts), a saved plan's events (src/installation/saved-plan.ts) and the
// node half's answer (src/installation/node-half.ts) derive from these, narrowing them.
import { z } from 'zod';
import { ACTION, STEP_RESULT } from './step.ts';

export const PROGRESS_PHASES = ['start', 'resuming', 'restarting', 'done'] as const;
export type ProgressPhase = (typeof PROGRESS_PHASES)[number];

const text = z.string();

/** Each engine event by its type. */
export const ENGINE_EVENTS = {
  'step-start': z.strictObject({
    type: z.literal('step-start'),
    step: text,
    title: text,
    /** The group a terminal shows it under (src/resources/resources.ts). */
    phase: text.optional(),
  }),
  'step-plan': z.strictObject({ type: z.literal('step-plan'), step: text, action: ACTION }),
  'step-done': z.strictObject({ type: z.literal('step-done'), step: text, result: STEP_RESULT }),
  'step-failed': z.strictObject({
    type: z.literal('step-failed'),
    step: text,
    code: text,
    message: text,
    /** What the operator can do (src/messages.ts), carried from the node half too (OPS-02). */
    hint: text.optional(),
  }),
  progress: z.strictObject({
    type: z.literal('progress'),
    step: text,
    file: text,
    received: z.number().nonnegative(),
    total: z.number().nonnegative(),
    /** start: from zero; resuming: from `received` (a part an earlier run left, DL-02);
     *  done: verified in place. Without a phase: bytes arrived. */
    phase: z.enum(PROGRESS_PHASES).optional(),
  }),
  note: z.strictObject({ type: z.literal('note'), step: text, message: text }),
  /** The wait for Core (ENR-04): seconds waited so far and what Core last said. */
  waiting: z.strictObject({
    type: z.literal('waiting'),
    step: text,
    elapsed: z.number().nonnegative(),
    said: text,
  }),
} as const;

type EventSchema = (typeof ENGINE_EVENTS)[keyof typeof ENGINE_EVENTS];
/** Any engine event: the union of every schema above (none can be left out of it). */
export const ENGINE_EVENT = z.discriminatedUnion(
  'type',
  Object.values(ENGINE_EVENTS) as [EventSchema, ...EventSchema[]],
);
export type EngineEvent = z.infer<typeof ENGINE_EVENT>;

export type Emit = (event: EngineEvent) => void;
