// FLEET-02, issue #25 item 3: the --json contract as zod schemas, one per event type, and the
// status document. docs/schema/ holds the JSON Schemas generated from them (npm run
// docs:schema, scripts/json-schema.ts); the tests validate what the executable prints against
// those files. Strict objects: a field the contract does not name is a change of the contract,
// and says so in a test before it reaches a script.
import { z } from 'zod';
import { ACTION_KINDS, OUTCOMES } from '../core/step.ts';
import { PROGRESS_PHASES } from '../core/events.ts';

const text = z.string();
const step = z.string();
const refusal = z.strictObject({ code: text, message: text, hint: text.optional() });

export const JSON_EVENTS = {
  start: z.strictObject({
    type: z.literal('start'),
    format: z.literal(1),
    command: z.enum(['install', 'uninstall']),
    version: text,
    dry_run: z.boolean(),
  }),
  'step-start': z.strictObject({
    type: z.literal('step-start'),
    step,
    title: text,
    phase: text.optional(),
  }),
  'step-plan': z.strictObject({
    type: z.literal('step-plan'),
    step,
    action: z.strictObject({
      kind: z.enum(ACTION_KINDS),
      detail: text,
      why: text.optional(),
      refusals: z.array(refusal).optional(),
    }),
  }),
  'step-done': z.strictObject({
    type: z.literal('step-done'),
    step,
    result: z.strictObject({ outcome: z.enum(OUTCOMES), detail: text }),
  }),
  'step-failed': z.strictObject({
    type: z.literal('step-failed'),
    step,
    code: text,
    message: text,
    hint: text.optional(),
  }),
  progress: z.strictObject({
    type: z.literal('progress'),
    step,
    file: text,
    received: z.number().nonnegative(),
    total: z.number().nonnegative(),
    phase: z.enum(PROGRESS_PHASES).optional(),
  }),
  note: z.strictObject({ type: z.literal('note'), step, message: text }),
  waiting: z.strictObject({
    type: z.literal('waiting'),
    step,
    elapsed: z.number().nonnegative(),
    said: text,
  }),
  summary: z.union([
    z.strictObject({
      type: z.literal('summary'),
      changed: z.boolean(),
      node_id: text.nullable(),
      unit: text,
      status: text,
      logs: text,
      notes: z.array(text),
    }),
    z.strictObject({
      type: z.literal('summary'),
      changed: z.boolean(),
      kept: z.array(text),
      /** Absent from a saved plan's replay (show-plan). */
      recorded: z.boolean().optional(),
    }),
  ]),
  error: z.strictObject({
    type: z.literal('error'),
    code: text,
    message: text,
    hint: text.nullable(),
    details: z.array(text).optional(),
    exit: z.number().int(),
  }),
} as const;

export type JsonEventType = keyof typeof JSON_EVENTS;

const resourceStatus = z.strictObject({
  key: text,
  kind: text,
  name: text,
  ownership: z.enum(['intended', 'owned', 'adopted']),
  state: z.enum(['present', 'missing', 'drifted']),
  detail: text.optional(),
});

/** `status --json`: one document. */
export const STATUS_DOCUMENT = z.strictObject({
  format: z.literal(1),
  installation_id: text,
  core_url: text,
  core_pin: text.nullable(),
  resources: z.array(resourceStatus),
  node_half: z.strictObject({ state: z.enum(['checked', 'unknown']), detail: text.optional() }),
  service: z.strictObject({ unit: text, enabled: z.boolean(), active: z.boolean() }),
  core: z.strictObject({
    state: z.enum([
      'ready',
      'not ready',
      'disconnected',
      'removed',
      'unreachable',
      'not registered',
      'unknown',
    ]),
    node_id: text.optional(),
    detail: text.optional(),
    core_pin: text.nullable().optional(),
  }),
  problems: z.array(text),
});

/** The JSON Schema documents docs/schema/ holds, by file name. */
export function jsonSchemaFiles(): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  for (const [type, schema] of Object.entries(JSON_EVENTS))
    files[`event-${type}.json`] = z.toJSONSchema(schema);
  files['status.json'] = z.toJSONSchema(STATUS_DOCUMENT);
  return files;
}
