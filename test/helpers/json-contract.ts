// The --json contract checked against the published JSON Schemas in docs/schema/ (issue #25
// item 3), with a real validator (ajv, draft 2020-12): what the tests see the executable print
// must be what the files promise scripts. Used by the unit tier (events made by the code), the
// host tier (the built executable) and the e2e harness (every `… --json` run in a host).
//
// Issue #39 item 10: the published files are open (a field added within a format passes them, so
// a consumer's copy accepts a newer node's output), so each answer is also held to the strict
// variant of the same files, generated from the same zod schemas with every object closed
// (src/cli/json-schemas.ts, strictJsonSchemaFiles): a field the code prints before the contract
// names it still fails here. The same validator reads both, and the two differ only in
// `additionalProperties: false` (test/unit/json-schema.test.ts), so the strict check is the
// published one plus exactly that.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class, ValidateFunction } from 'ajv/dist/2020.js';
import { strictJsonSchemaFiles } from '../../src/cli/json-schemas.ts';

// The package is CommonJS; required as such, its class is a named export.
const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020') as {
  Ajv2020: typeof Ajv2020Class;
};

const SCHEMA_DIR = fileURLToPath(new URL('../../docs/schema/', import.meta.url));

type Validators = Map<string, ValidateFunction>;

let published: Validators | undefined;
let strict: Validators | undefined;

/** One validator per schema, by file name; each set in an Ajv of its own (the two share $ids). */
function compiled(schemas: Array<[string, unknown]>): Validators {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  return new Map(schemas.map(([n, schema]) => [n, ajv.compile(schema as object)]));
}

/** The files of docs/schema/, as a consumer reads them. */
function publishedValidators(): Validators {
  published ??= compiled(
    readdirSync(SCHEMA_DIR)
      .filter((n) => n.endsWith('.json'))
      .map((n) => [n, JSON.parse(readFileSync(join(SCHEMA_DIR, n), 'utf8'))]),
  );
  return published;
}

function strictValidators(): Validators {
  strict ??= compiled(Object.entries(strictJsonSchemaFiles()));
  return strict;
}

function problemBy(validators: Validators, what: string, name: string, value: unknown) {
  const validate = validators.get(name);
  if (validate === undefined) return `${what}${name} does not exist`;
  if (validate(value)) return undefined;
  return `${what}${name}: ${JSON.stringify(validate.errors)}`;
}

/** Why a value does not pass the published file docs/schema/`name` (what a consumer checks),
 *  or undefined when it does. */
export function publishedSchemaProblem(name: string, value: unknown): string | undefined {
  return problemBy(publishedValidators(), 'docs/schema/', name, value);
}

/** Why a value does not pass the schema file `name` as this project holds its own output to it:
 *  the published file, and its strict variant (no field the contract does not name). */
export function schemaProblem(name: string, value: unknown): string | undefined {
  return (
    publishedSchemaProblem(name, value) ??
    problemBy(strictValidators(), 'strict (a field the contract does not name?) ', name, value)
  );
}

/** Every whole line of a `--json` run's standard output (the last, unterminated one of a run
 *  stopped mid-write is not a whole line) is an event of a documented type, valid by its file. */
export function jsonEventProblems(stdout: string): string[] {
  const lines = stdout
    .split('\n')
    .slice(0, -1)
    .filter((l) => l !== '');
  return lines.flatMap((line) => {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return [`not JSON: ${line.slice(0, 200)}`];
    }
    const type = (event as { type?: unknown }).type;
    const problem = schemaProblem(`event-${String(type)}.json`, event);
    return problem === undefined ? [] : [problem];
  });
}

export function assertJsonEvents(stdout: string, what: string): void {
  assert.deepEqual(jsonEventProblems(stdout), [], `${what}: --json events against docs/schema/`);
}

export function assertStatusDocument(stdout: string, what: string): void {
  assertJsonDocument('status.json', stdout, what);
}

/** A command's one JSON document (`status.json`, `bundle.json`, `command.json`): one line. */
export function assertJsonDocument(name: string, stdout: string, what: string): void {
  assert.match(stdout, /^[^\n]+\n$/, `${what}: one line`);
  const problem = schemaProblem(name, JSON.parse(stdout));
  assert.equal(problem, undefined, `${what}: against docs/schema/${name}`);
}
