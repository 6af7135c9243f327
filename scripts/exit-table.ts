// Writes the exit-status table (src/exit-statuses.ts, issue #39 item 3) into the docs that
// carry it, between the markers <!-- exit-statuses:begin --> and <!-- exit-statuses:end -->.
//   npm run docs:exit                        write them
//   npx tsx scripts/exit-table.ts --check    exit 1 when a doc differs from what it would write
// test/unit/exit-statuses.test.ts fails when a doc is not what the code generates.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitTableMarkdown } from '../src/exit-statuses.ts';

const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');
export const EXIT_TABLE_DOCS = ['messages.md', 'automation.md'];
const BEGIN =
  '<!-- exit-statuses:begin (npm run docs:exit writes this table: src/exit-statuses.ts) -->';
const END = '<!-- exit-statuses:end -->';

/** The doc's text with the table between its markers as the code makes it. */
export function withExitTable(text: string, doc: string): string {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/${doc} has no exit-statuses markers`);
  return `${text.slice(0, begin + BEGIN.length)}\n\n${exitTableMarkdown()}\n\n${text.slice(end)}`;
}

export function docText(doc: string): string {
  return readFileSync(join(DOCS, doc), 'utf8');
}

function main(argv: string[]): number {
  let stale = 0;
  for (const doc of EXIT_TABLE_DOCS) {
    const text = docText(doc);
    const wanted = withExitTable(text, doc);
    if (wanted === text) continue;
    if (argv[0] === '--check') {
      console.error(`docs/${doc}: its exit-status table is not what the code generates`);
      stale++;
    } else writeFileSync(join(DOCS, doc), wanted);
  }
  return stale === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));
