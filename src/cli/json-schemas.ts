// FLEET-02, issue #25 item 3: the --json contract as zod schemas, one per event type, and the
// status document. docs/schema/ holds the JSON Schemas generated from them (npm run
// docs:schema, scripts/json-schema.ts); the tests validate what the executable prints against
// those files. Strict objects: a field the contract does not name is a change of the contract,
// and says so in a test before it reaches a script.
import { z } from 'zod';
import { ENGINE_EVENTS } from '../core/events.ts';

const text = z.string();

export const JSON_EVENTS = {
  start: z.strictObject({
    type: z.literal('start'),
    format: z.literal(1),
    command: z.enum(['install', 'uninstall']),
    version: text,
    dry_run: z.boolean(),
  }),
  // The engine's events as they are defined (issue #38: once, in src/core/events.ts).
  ...ENGINE_EVENTS,
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
