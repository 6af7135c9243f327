// The --json contract checked against the published JSON Schemas in docs/schema/ (issue #25
// item 3), with a real validator (ajv, draft 2020-12): what the tests see the executable print
// must be what the files promise scripts. Used by the unit tier (events made by the code), the
// host tier (the built executable) and the e2e harness (every `… --json` run in a host).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class, ValidateFunction } from 'ajv/dist/2020.js';

// The package is CommonJS; required as such, its class is a named export.
const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020') as {
  Ajv2020: typeof Ajv2020Class;
};

const SCHEMA_DIR = fileURLToPath(new URL('../../docs/schema/', import.meta.url));

let validators: Map<string, ValidateFunction> | undefined;

/** One validator per file of docs/schema/, by file name. */
function loaded(): Map<string, ValidateFunction> {
  if (validators !== undefined) return validators;
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  validators = new Map(
    readdirSync(SCHEMA_DIR)
      .filter((n) => n.endsWith('.json'))
      .map((n) => [n, ajv.compile(JSON.parse(readFileSync(join(SCHEMA_DIR, n), 'utf8')))]),
  );
  return validators;
}

/** Why a value does not pass the schema file `name`, or undefined when it does. */
export function schemaProblem(name: string, value: unknown): string | undefined {
  const validate = loaded().get(name);
  if (validate === undefined) return `docs/schema/${name} does not exist`;
  if (validate(value)) return undefined;
  return `${name}: ${JSON.stringify(validate.errors)}`;
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
  const problem = schemaProblem('status.json', JSON.parse(stdout));
  assert.equal(problem, undefined, `${what}: status --json against docs/schema/status.json`);
}
