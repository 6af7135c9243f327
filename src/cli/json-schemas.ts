// FLEET-02, issue #25 item 3, issue #39 item 10: the --json contract as zod schemas, one per
// event type, and the documents (status, bundle, command). docs/schema/ holds the JSON Schemas
// generated from them (npm run docs:schema, scripts/json-schema.ts).
//
// Two views of one contract. The zod schemas here are strict: a field the code prints that the
// contract does not name fails this project's own tests (test/helpers/json-contract.ts checks
// every answer against strictJsonSchemaFiles()). The published files are open: within one
// `format` a field may be added (docs/automation.md), so an object there carries no
// `additionalProperties: false`, and a consumer validating a newer node's output with today's
// files accepts the field it added. The two differ in that keyword alone
// (test/unit/json-schema.test.ts).
//
// Each file names itself with a URN, `urn:oac-node:schema:<file>:<format>`: an identifier that
// locates nothing, so it stays true wherever the files are copied, claims no domain, and a
// format 2 schema gets a new one.
import { z } from 'zod';
import { ENGINE_EVENTS } from '../core/events.ts';

const text = z.string();
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
/** Each document's first field (docs/automation.md): 1 until a field is renamed, removed or
 *  given another meaning. */
const format = z
  .literal(1)
  .describe('The format of this document: a reader refuses one it does not know');

export const JSON_EVENTS = {
  start: z.strictObject({
    type: z.literal('start'),
    format: z
      .literal(1)
      .describe('The format of every event of the run: a reader refuses one it does not know'),
    command: z.enum(['install', 'uninstall']),
    version: text.describe("The program's version"),
    dry_run: z.boolean().describe('--dry-run or --plan-out: nothing is changed'),
  }),
  // The engine's events as they are defined (issue #38: once, in src/core/events.ts).
  ...ENGINE_EVENTS,
  summary: z.union([
    z
      .strictObject({
        type: z.literal('summary'),
        changed: z
          .boolean()
          .describe(
            'A step created, adopted, updated, replaced or removed something (a dry run: would)',
          ),
        node_id: text.nullable().describe("The node's ID in Core; null in a dry run"),
        unit: text.describe("The node's systemd unit"),
        status: text.describe('A command that shows the service'),
        logs: text.describe("A command that shows the node's logs"),
        notes: z.array(text).describe('What the operator should know'),
        version: text.describe("The program's version, which the node's service now runs"),
      })
      .describe('The summary of an install, a rerun or an apply'),
    z
      .strictObject({
        type: z.literal('summary'),
        changed: z.boolean().describe('Something was removed (a dry run: would be)'),
        kept: z.array(text).describe('What the uninstall left in place, one line each'),
        /** Absent from a saved plan's replay (show-plan). */
        recorded: z
          .boolean()
          .optional()
          .describe(
            'false: this host had no record of the ID (mistyped, or uninstalled already); absent from show-plan',
          ),
      })
      .describe('The summary of an uninstall'),
  ]),
  error: z.strictObject({
    type: z.literal('error'),
    code: text.describe('A stable message code (docs/messages.md)'),
    message: text.describe('The line that names what to fix'),
    hint: text.nullable().describe('What the operator can do, or null'),
    details: z
      .array(text)
      .optional()
      .describe(
        'The lines under the message: each refusal of a refused plan, each problem of a file',
      ),
    exit: z
      .number()
      .int()
      .min(0)
      .max(255)
      .describe('The exit status the command ends with (docs/automation.md, Exit status)'),
  }),
} as const;

export type JsonEventType = keyof typeof JSON_EVENTS;

const STEP = "The step: a resource's key, node:… for the node half's, ready for the wait for Core";

/** What the published file of each event says of it; the engine's fields are described here,
 *  where their schemas (src/core/events.ts) carry comments only. */
const EVENT_DOCS: Record<JsonEventType, { description: string; fields?: Record<string, string> }> =
  {
    start: { description: 'The first event of install, uninstall and apply, once' },
    'step-start': {
      description: 'A step begins',
      fields: {
        title: 'What the step does, as a terminal shows it',
        phase: 'The group a terminal shows the step under',
      },
    },
    'step-plan': {
      description:
        'What a step would do (always in a dry run); a refuse action stops the run before anything is written',
      fields: { action: 'kind, detail, why? and, for refuse, refusals ({code, message, hint?})' },
    },
    'step-done': {
      description: 'A step ended',
      fields: { result: 'outcome and detail' },
    },
    'step-failed': {
      description: 'A step failed',
      fields: {
        code: 'A stable message code (docs/messages.md)',
        hint: 'What the operator can do',
      },
    },
    progress: {
      description: 'A download, or a copy out of a bundle, moves',
      fields: {
        file: 'The file being fetched or copied',
        received: 'Bytes so far',
        total: 'Bytes in all',
        phase:
          'start: from zero; resuming: from received; restarting: from zero again; done: verified in place. Absent: bytes arrived',
      },
    },
    note: { description: 'Something the operator should know; no run of this version emits one' },
    waiting: {
      description: 'The wait for Core to list the node connected and ready',
      fields: { elapsed: 'Seconds waited so far', said: 'What Core last said' },
    },
    summary: {
      description:
        'The last event of a run that succeeded: an install (node_id, unit, status, logs, notes) or an uninstall (kept, recorded)',
    },
    error: {
      description:
        'The last event of a run that failed, or the only one when it failed before its own events',
    },
  };

/** An engine event's schema with its published descriptions (a copy: JSON_EVENTS keeps the
 *  engine's own). */
function described(type: JsonEventType): z.ZodType {
  const schema = JSON_EVENTS[type];
  if (!(schema instanceof z.ZodObject)) return schema;
  const shape = schema.shape as Record<string, z.ZodType>;
  const fields = {
    ...('step' in shape && type in ENGINE_EVENTS ? { step: STEP } : {}),
    ...EVENT_DOCS[type].fields,
  };
  if (Object.keys(fields).length === 0) return schema;
  return schema.extend(
    Object.fromEntries(
      Object.entries(fields).map(([name, description]) => {
        const field = shape[name];
        if (field === undefined)
          throw new TypeError(`EVENT_DOCS describes ${type}.${name}, which the event lacks`);
        return [name, field.describe(description)];
      }),
    ),
  );
}

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
  format,
  installation_id: text,
  core_url: text,
  core_pin: text.nullable(),
  resources: z.array(resourceStatus).describe('Each resource the record lists, against the host'),
  node_half: z.strictObject({ state: z.enum(['checked', 'unknown']), detail: text.optional() }),
  service: z.strictObject({ unit: text, enabled: z.boolean(), active: z.boolean() }),
  core: z
    .strictObject({
      // Issue #39 item 10: two values hold a space. They stay as they are: a consumer compares
      // them, and a renamed value is a new format (docs/automation.md), not a change within 1.
      state: z
        .enum([
          'ready',
          'not ready',
          'disconnected',
          'removed',
          'unreachable',
          'not registered',
          'unknown',
        ])
        .describe(
          'Exactly one of these strings, spaces included ("not ready", "not registered"); they are kept as listed throughout format 1',
        ),
      node_id: text.optional(),
      detail: text.optional(),
      core_pin: text.nullable().optional(),
    })
    .describe("Core's view of the node"),
  problems: z.array(text).describe('One line per problem; empty when all is well'),
  // Issue #39 items 6 and 7: added within format 1.
  next: z
    .array(text)
    .describe('What to do about the problems, each with its exact command; empty when all is well'),
  program: z
    .strictObject({ version: text.nullable().describe('As the record has it; null: unknown') })
    .describe('The program the service runs'),
  serving: z
    .strictObject({
      generation: z.number().int().positive(),
      release: text.nullable(),
    })
    .nullable()
    .describe('The generation and release the node serves, as Core has them; null: Core not asked'),
  last_run: z
    .strictObject({
      at: text.describe('When it ended (ISO 8601, UTC)'),
      run: z.enum(['install', 'rerun', 'upgrade', 'downgrade', 'roll back']),
      version: text.nullable().describe("The program's version after it"),
      from: text
        .nullable()
        .describe(
          'The version it replaced: before an upgrade or a downgrade; the one a roll back undid',
        ),
      outcome: z.enum(['done', 'failed']),
    })
    .nullable()
    .describe('The last run that changed the host; null: none recorded'),
  last_run_log: text
    .nullable()
    .describe("Where that run's events are kept (root's alone); null: none kept"),
  // Issue #40: added within format 1.
  other_host: z
    .boolean()
    .describe(
      'The node was registered on another host (a copy of its disk or image): its service refuses to run here, and Core was not asked',
    ),
});

/** `bundle --json`: one document, once the bundle is written (OFFLINE-01). */
export const BUNDLE_DOCUMENT = z.strictObject({
  format,
  path: text.describe('The bundle, an absolute path'),
  release: text.describe('The release it holds'),
  size: z.number().int().nonnegative().describe("The bundle's size in bytes"),
  sha256: sha256.describe("The bundle's SHA-256: check the copy on the host with it"),
  manifest_sha256: sha256.describe(
    "The SHA-256 of the release manifest in it: the line's --manifest-sha256",
  ),
  files: z
    .array(
      z.strictObject({
        name: text.describe('The entry name (manifest.json, oac-node.gz, the node files)'),
        size: z.number().int().nonnegative().describe('Bytes'),
        sha256,
      }),
    )
    .describe('Each entry of the bundle, in order'),
});
export type BundleDocument = z.infer<typeof BUNDLE_DOCUMENT>;

/** `version --json` (and `--version --json`): what the program is (issue #39 item 6). */
export const VERSION_DOCUMENT = z.strictObject({
  format,
  program: z.literal('oac-node'),
  version: text,
  build: z.strictObject({
    kind: z
      .enum(['release', 'test', 'sources'])
      .describe('release: npm run build; test: a test build; sources: run from the sources'),
    commit: text.nullable().describe('The commit it was built from (+changes: with changes)'),
    codeCache: z
      .enum(['accepted', 'refused', 'none'])
      .describe(
        "V8's code cache for the program: accepted (it starts fastest), refused (it starts slower: tell the project) or none (run from the sources)",
      ),
  }),
  node: text.describe('The version of Node.js inside the executable'),
  formats: z
    .strictObject({
      record: z.number().int().describe('The record under /etc/oac-node'),
      json: z.number().int().describe('The --json events'),
      plan: z.number().int().describe('Saved plans (--plan-out)'),
    })
    .describe('The formats it reads and writes'),
});

/** `diagnose --json`: the support bundle's MANIFEST.json (issue #40, docs/support.md). */
export const DIAGNOSE_DOCUMENT = z.strictObject({
  format,
  program: z.literal('oac-node'),
  version: text,
  created_at: text.describe('When the bundle was made (ISO 8601, UTC)'),
  installation_id: text,
  files: z
    .array(
      z.strictObject({
        name: text,
        size: z.number().int().nonnegative(),
        sha256,
        masked: z.array(text).describe('What was masked in it, by field or kind of secret'),
      }),
    )
    .describe('Each file of the bundle but this manifest'),
  missing: z
    .array(z.strictObject({ name: text, reason: text }))
    .describe('What could not be collected, and why'),
  scanned_for: z.array(text).describe('The kinds of secret every file was searched for'),
});

/** `command --json`: one document with the line `command` prints (BOOT-01). */
export const COMMAND_DOCUMENT = z.strictObject({
  format,
  command: z
    .enum(['install', 'uninstall'])
    .describe('What the line does: install (it carries the token) or uninstall'),
  line: text.describe(
    'The one-line command to paste on the host, exactly as printed without --json',
  ),
});
export type CommandDocument = z.infer<typeof COMMAND_DOCUMENT>;

interface Published {
  schema: z.ZodType;
  title: string;
  description: string;
}

/** Every published document, by the name of its file (without `.json`). */
function published(): Record<string, Published> {
  const files: Record<string, Published> = {};
  for (const type of Object.keys(JSON_EVENTS) as JsonEventType[])
    files[`event-${type}`] = {
      schema: described(type),
      title: `oac-node --json event: ${type}`,
      description: EVENT_DOCS[type].description,
    };
  files.status = {
    schema: STATUS_DOCUMENT,
    title: 'oac-node status --json',
    description:
      "The record of an installation, the host against it and Core's view, with the problems found",
  };
  files.bundle = {
    schema: BUNDLE_DOCUMENT,
    title: 'oac-node bundle --json',
    description: 'The bundle written: where, its size and SHA-256, and each entry in it',
  };
  files.version = {
    schema: VERSION_DOCUMENT,
    title: 'oac-node version --json',
    description: 'What the program is: its version, build, Node.js and the formats it reads',
  };
  files.diagnose = {
    schema: DIAGNOSE_DOCUMENT,
    title: 'oac-node diagnose --json',
    description: "The support bundle's manifest: its files, what was masked and what is missing",
  };
  files.command = {
    schema: COMMAND_DOCUMENT,
    title: 'oac-node command --json',
    description: 'The one-line install or uninstall command for a host',
  };
  return files;
}

/** The contract's format, which each file's URN names. */
const FORMAT = 1;

/** Drops `additionalProperties: false` where zod writes it (every object of the contract). */
function open(ctx: { jsonSchema: Record<string, unknown> }): void {
  if (ctx.jsonSchema.additionalProperties === false) delete ctx.jsonSchema.additionalProperties;
}

function generate(strict: boolean): Record<string, unknown> {
  const files: Record<string, unknown> = {};
  for (const [name, { schema, title, description }] of Object.entries(published())) {
    const { $schema, ...body } = z.toJSONSchema(schema, strict ? {} : { override: open });
    // The identity first, then what the document is, then its shape.
    files[`${name}.json`] = {
      $schema,
      $id: `urn:oac-node:schema:${name}:${FORMAT}`,
      title,
      description,
      ...body,
    };
  }
  return files;
}

/** The JSON Schema documents docs/schema/ holds, by file name: open objects (a field added
 *  within a format passes them). */
export function jsonSchemaFiles(): Record<string, unknown> {
  return generate(false);
}

/** The same documents with every object closed (`additionalProperties: false`): what this
 *  project's tests hold the code to, so a field printed before the contract names it fails. */
export function strictJsonSchemaFiles(): Record<string, unknown> {
  return generate(true);
}
