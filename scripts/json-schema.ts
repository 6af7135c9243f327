// Writes docs/schema/: the JSON Schema of each --json event type and of each document (status,
// bundle, command), generated from the zod schemas of the contract (src/cli/json-schemas.ts,
// issue #25 item 3). Each names itself (a URN $id, a title, a description) and leaves its
// objects open, so a field added within a format passes it (issue #39 item 10); the tests hold
// the code to the strict variant besides (test/helpers/json-contract.ts).
//   npm run docs:schema            write the files
//   npx tsx scripts/json-schema.ts --check   exit 1 when a file differs from what it would write
// test/unit/json-schema.test.ts fails when the files are not what the code generates.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchemaFiles } from '../src/cli/json-schemas.ts';

export const SCHEMA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'schema');

/** Each file's text as written: two-space JSON and a final line end (prettier leaves it be:
 *  docs/schema is in .prettierignore). */
export function schemaTexts(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(jsonSchemaFiles()).map(([name, schema]) => [
      name,
      `${JSON.stringify(schema, null, 2)}\n`,
    ]),
  );
}

function main(argv: string[]): number {
  const texts = schemaTexts();
  if (argv[0] === '--check') {
    const stale = Object.entries(texts).filter(([name, text]) => {
      try {
        return readFileSync(join(SCHEMA_DIR, name), 'utf8') !== text;
      } catch {
        return true;
      }
    });
    const extra = readdirSync(SCHEMA_DIR).filter((n) => n.endsWith('.json') && !(n in texts));
    for (const [name] of stale) console.error(`docs/schema/${name} is not what the code generates`);
    for (const name of extra) console.error(`docs/schema/${name} describes nothing the code has`);
    return stale.length + extra.length === 0 ? 0 : 1;
  }
  mkdirSync(SCHEMA_DIR, { recursive: true });
  for (const [name, text] of Object.entries(texts)) writeFileSync(join(SCHEMA_DIR, name), text);
  console.log(`wrote ${Object.keys(texts).length} schemas to docs/schema/`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));
