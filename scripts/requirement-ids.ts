// Which requirement IDs the suite cites (issue #28 item 6, "Nothing lost"): every test title in
// test/**/*.test.ts (a test inside a describe cites its describe's IDs too) and every row of the
// row tables (test/host/hostile-rows.ts: one test per row, its ID in `req:`). An ID counts only
// when its prefix is one of docs/requirements.md's (`TLS-1`, `CRLF-2` are not IDs).
//
//   npx tsx scripts/requirement-ids.ts                 per ID: the tests citing it and their tiers
//   npx tsx scripts/requirement-ids.ts --against REV   exit 1, one line per ID cited at REV
//                                                      (git show REV:path) that no test cites now
//                                                      (exit 2: REV cannot be read)
//
// The titles are read from the syntax tree (TypeScript's parser), not by a line grep: a title may
// start on the line after `test(`, or be a template whose static parts carry the IDs. A test
// written once in a loop counts once.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export type Tier = 'unit' | 'host' | 'e2e';
export const TIERS: readonly Tier[] = ['unit', 'host', 'e2e'];

/** One test as written in the source: where, its title's static text, the IDs it cites. */
export interface TestSite {
  file: string;
  line: number;
  title: string;
  ids: string[];
}

/** Per ID: how many tests cite it, and in which tiers. */
export interface Citation {
  tests: number;
  tiers: Set<Tier>;
}

/** Files whose object literals are test rows, each row a test citing its `req:` field. */
export const ROW_FILES = ['test/host/hostile-rows.ts'];

const TEST_CALLS = new Set(['test', 'it']);
const SUITE_CALLS = new Set(['describe', 'suite']);
const MODIFIERS = new Set(['skip', 'only', 'todo']);

/** The requirement prefixes the spec defines: its `- PRE-01 …` lines. */
export function requirementPrefixes(spec: string): Set<string> {
  const prefixes = new Set<string>();
  for (const match of spec.matchAll(/^- ([A-Z]+)-\d+\b/gm)) prefixes.add(match[1]!);
  return prefixes;
}

/** The IDs in `text` whose prefix the spec defines, in order, each once. */
export function idsIn(text: string, prefixes: ReadonlySet<string>): string[] {
  const ids: string[] = [];
  for (const match of text.matchAll(/\b([A-Z]+)-(\d+)\b/g)) {
    const id = `${match[1]!}-${match[2]!}`;
    if (prefixes.has(match[1]!) && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** The tier of a test file, from its folder under test/. */
export function tierOf(file: string): Tier | undefined {
  const folder = file.split('/')[1];
  return TIERS.find((tier) => tier === folder);
}

/** `test`, `it.skip`, `describe.only`…: 'test', 'suite' or nothing. */
function callKind(callee: ts.Expression): 'test' | 'suite' | undefined {
  let name: string | undefined;
  if (ts.isIdentifier(callee)) name = callee.text;
  else if (ts.isPropertyAccessExpression(callee)) {
    const inner = callee.expression;
    if (!ts.isIdentifier(inner)) return undefined; // /re/.test(…), f(x).test(…)
    // t.test(…) inside a test, or test.skip(…)
    if (callee.name.text === 'test') name = 'test';
    else if (MODIFIERS.has(callee.name.text)) name = inner.text;
  }
  if (name === undefined) return undefined;
  if (TEST_CALLS.has(name)) return 'test';
  if (SUITE_CALLS.has(name)) return 'suite';
  return undefined;
}

/** The static text of a title: a string, a template's literal parts (each substitution shown as
 *  …), a `+` of them. */
function staticText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('…');
  if (ts.isParenthesizedExpression(node)) return staticText(node.expression);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const parts = [staticText(node.left), staticText(node.right)];
    return parts.every((p) => p === undefined) ? undefined : parts.map((p) => p ?? '…').join('');
  }
  return undefined;
}

const lineOf = (source: ts.SourceFile, node: ts.Node) =>
  source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

/** Every test call in one file, with the IDs of its title and of the describes around it. */
export function testsIn(file: string, text: string, prefixes: ReadonlySet<string>): TestSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const sites: TestSite[] = [];
  const visit = (node: ts.Node, outer: string[]): void => {
    if (ts.isCallExpression(node)) {
      const kind = callKind(node.expression);
      const first = node.arguments[0];
      const title = first === undefined ? undefined : staticText(first);
      // pattern.test(name) is a RegExp's, not a subtest: a subtest's title is written out.
      const regExp =
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'test' &&
        title === undefined;
      if (kind !== undefined && first !== undefined && !regExp) {
        const ids = [...new Set([...outer, ...idsIn(title ?? '', prefixes)])];
        if (kind === 'test')
          sites.push({ file, line: lineOf(source, node), title: title ?? '', ids });
        ts.forEachChild(node, (child) => visit(child, ids));
        return;
      }
    }
    ts.forEachChild(node, (child) => visit(child, outer));
  };
  visit(source, []);
  return sites;
}

/** Every object literal with a `req:` string in a row file: one test per row. */
export function rowsIn(file: string, text: string, prefixes: ReadonlySet<string>): TestSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const sites: TestSite[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node))
      for (const property of node.properties) {
        if (!ts.isPropertyAssignment(property) || property.name.getText(source) !== 'req') continue;
        const title = staticText(property.initializer);
        if (title !== undefined)
          sites.push({ file, line: lineOf(source, node), title, ids: idsIn(title, prefixes) });
      }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** Is `file` (relative to the repository, with /) one the suite's IDs are read from? */
export const isCitingFile = (file: string) =>
  ROW_FILES.includes(file) ||
  (file.startsWith('test/') && file.endsWith('.test.ts') && tierOf(file) !== undefined);

/** The tests of a set of files: `files` maps each path to its text. */
export function sitesOf(files: Map<string, string>, prefixes: ReadonlySet<string>): TestSite[] {
  return [...files]
    .filter(([file]) => isCitingFile(file))
    .flatMap(([file, text]) =>
      ROW_FILES.includes(file) ? rowsIn(file, text, prefixes) : testsIn(file, text, prefixes),
    );
}

/** Per ID, the number of tests citing it and their tiers. */
export function tally(sites: TestSite[]): Map<string, Citation> {
  const byId = new Map<string, Citation>();
  for (const site of sites) {
    const tier = tierOf(site.file);
    for (const id of site.ids) {
      const citation = byId.get(id) ?? { tests: 0, tiers: new Set<Tier>() };
      citation.tests += 1;
      if (tier !== undefined) citation.tiers.add(tier);
      byId.set(id, citation);
    }
  }
  return byId;
}

/** PRE-2 before PRE-10, prefixes alphabetically. */
export function compareIds(a: string, b: string): number {
  const [pa = '', na = '0'] = a.split('-');
  const [pb = '', nb = '0'] = b.split('-');
  return pa.localeCompare(pb) || Number(na) - Number(nb);
}

/** The IDs cited `before` that nothing cites `now`, sorted. */
export function lostIds(
  before: ReadonlyMap<string, Citation>,
  now: ReadonlyMap<string, Citation>,
): string[] {
  return [...before.keys()].filter((id) => !now.has(id)).sort(compareIds);
}

/** One line per ID: `PRE-01  3 tests  unit host e2e`. */
export function formatTally(byId: ReadonlyMap<string, Citation>): string {
  const ids = [...byId.keys()].sort(compareIds);
  const width = Math.max(0, ...ids.map((id) => id.length));
  return ids
    .map((id) => {
      const { tests, tiers } = byId.get(id)!;
      const count = `${tests} test${tests === 1 ? '' : 's'}`.padEnd(9);
      return `${id.padEnd(width)}  ${count}  ${TIERS.filter((t) => tiers.has(t)).join(' ')}`;
    })
    .join('\n');
}

/** The working tree's citing files. */
function filesNow(repo: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(repo, 'test'), { recursive: true })) {
    const file = `test/${String(entry).split(sep).join('/')}`;
    if (isCitingFile(file)) files.set(file, readFileSync(join(repo, file), 'utf8'));
  }
  return files;
}

/** The citing files at a git revision. */
function filesAt(repo: string, rev: string): Map<string, string> {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], {
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const files = new Map<string, string>();
  for (const file of git('ls-tree', '-r', '--name-only', rev, '--', 'test').split('\n'))
    if (isCitingFile(file)) files.set(file, git('show', `${rev}:${file}`));
  return files;
}

function main(argv: string[]): number {
  const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
  const spec = readFileSync(join(repo, 'docs', 'requirements.md'), 'utf8');
  const prefixes = requirementPrefixes(spec);
  const now = tally(sitesOf(filesNow(repo), prefixes));
  if (argv[0] === '--against' && argv[1] !== undefined && argv.length === 2) {
    let files: Map<string, string>;
    try {
      files = filesAt(repo, argv[1]);
    } catch (error) {
      const why = (error as { stderr?: string }).stderr?.trim() || String(error);
      process.stderr.write(`cannot read the tests at ${argv[1]}: ${why.split('\n')[0]}\n`);
      return 2;
    }
    const before = tally(sitesOf(files, prefixes));
    const lost = lostIds(before, now);
    for (const id of lost)
      process.stdout.write(
        `lost: ${id} (cited by ${before.get(id)!.tests} test(s) at ${argv[1]}, by none now)\n`,
      );
    if (lost.length > 0) return 1;
    process.stdout.write(
      `nothing lost: all ${before.size} IDs cited at ${argv[1]} are cited now (${now.size} IDs now)\n`,
    );
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write('usage: npx tsx scripts/requirement-ids.ts [--against <git revision>]\n');
    return 64;
  }
  process.stdout.write(`${formatTally(now)}\n${now.size} requirement IDs cited\n`);
  return 0;
}

const script = process.argv[1];
if (script !== undefined && import.meta.url === new URL(`file://${script}`).href)
  process.exitCode = main(process.argv.slice(2));
