// What every fuzz-*.test.ts shares (issue #26 item 2): one seed for the whole run, read from
// OAC_FUZZ_SEED or fixed, so a failure in CI replays here; the run count; the property that only
// an OacError escapes a parser; the check that a refusal prints no raw control character and no
// secret; and generators of near-valid input (a valid example mutated a little), which reach the
// parsers' deeper branches far more often than noise does.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isOacError, type OacError } from '../../src/errors.ts';
import { escapeControls } from '../../src/ui/printable.ts';
import { renderError } from '../../src/ui/render-error.ts';

function seedFromEnv(): number {
  const text = process.env.OAC_FUZZ_SEED;
  if (text === undefined || text === '') return 0x0ac26;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`OAC_FUZZ_SEED=${text} is not an integer`);
  return seed;
}

export const SEED = seedFromEnv();
/** The floor: at least 10 000 generated cases per parser. */
export const RUNS = 10_000;

/** fast-check's report names seed and path; this names the variable that replays it too. */
function withSeed(error: unknown): Error {
  const text = error instanceof Error ? error.message : String(error);
  return new Error(
    `fuzz failed with OAC_FUZZ_SEED=${SEED} (replay: OAC_FUZZ_SEED=${SEED})\n${text}`,
    {
      cause: error,
    },
  );
}

export function check<T>(property: fc.IProperty<T>, numRuns = RUNS): void {
  try {
    fc.assert(property, { seed: SEED, numRuns, includeErrorInReport: true });
  } catch (error) {
    throw withSeed(error);
  }
}

export async function checkAsync<T>(property: fc.IAsyncProperty<T>, numRuns = RUNS): Promise<void> {
  try {
    await fc.assert(property, { seed: SEED, numRuns, includeErrorInReport: true });
  } catch (error) {
    throw withSeed(error);
  }
}

export type Outcome<T> = { ok: T } | { error: OacError };

/** The parser's value or the OacError it threw; anything else escaping fails the property. */
export function outcome<T>(parse: () => T): Outcome<T> {
  try {
    return { ok: parse() };
  } catch (error) {
    if (isOacError(error)) return { error };
    throw escaped(error);
  }
}

export async function outcomeAsync<T>(parse: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: await parse() };
  } catch (error) {
    if (isOacError(error)) return { error };
    throw escaped(error);
  }
}

function escaped(error: unknown): Error {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new Error(`not an OacError escaped the parser: ${what}`, { cause: error });
}

// What the terminal must never receive raw (src/ui/printable.ts's set); LF separates the lines
// renderError itself writes.
const RAW_CONTROL =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * A refusal as the operator sees it: renderError's lines hold no raw control character, and no
 * secret appears in them. `unmasked` secrets are the ones the program never registers with the
 * redactor (a proxy password is named by its variable, never quoted): they must not be in the
 * error's own text either, so the check does not lean on the redactor.
 */
export function assertPrintable(
  error: OacError,
  secrets: { masked?: readonly string[]; unmasked?: readonly string[] } = {},
): void {
  const shown = renderError(error);
  assert.doesNotMatch(shown, RAW_CONTROL, 'a raw control character reaches the terminal');
  const own = [error.message, error.hint ?? '', ...error.details];
  for (const secret of [...(secrets.masked ?? []), ...(secrets.unmasked ?? [])])
    // Lines are escaped: an echoed secret would show in its escaped form.
    assert.ok(
      !shown.includes(escapeControls(secret)),
      `a secret is printed: ${JSON.stringify(shown)}`,
    );
  for (const secret of secrets.unmasked ?? [])
    for (const text of own)
      assert.ok(!text.includes(secret), `a secret is in the error: ${JSON.stringify(text)}`);
}

// Strings a parser has to be ready for: control characters (C0, DEL, C1, bidi, separators),
// path tricks, quotes and escapes, lone surrogates, prototype keys, a long run.
const HOSTILE_PIECES = [
  '',
  '\u0000',
  '\n',
  '\r\n',
  '\t',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u202e',
  '\u2028',
  '\ud800',
  '\udc00',
  '/',
  '..',
  '.',
  '"',
  '\\',
  '%',
  '%00',
  '@',
  ':',
  '#',
  '?',
  ' ',
  '__proto__',
  'constructor',
  'é',
  '😀',
  'x'.repeat(300),
];

/** Any string, leaning towards the pieces that break parsers. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ maxLength: 4 })), {
        maxLength: 5,
      })
      .map((parts) => parts.join('')),
  },
);

/** `text` with a few characters inserted, removed or replaced, or cut short. */
export function mutatedText(text: string): fc.Arbitrary<string> {
  const edit = fc.tuple(
    fc.nat({ max: Math.max(0, text.length) }),
    fc.nat({ max: 4 }),
    fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: 'binary', maxLength: 3 })),
  );
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    let out = text;
    for (const [at, drop, insert] of edits) {
      const i = Math.min(at, out.length);
      out = out.slice(0, i) + insert + out.slice(i + drop);
    }
    return out;
  });
}

type Path = Array<string | number>;

function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => pathsOf(v, [...prefix, i])));
  if (typeof value === 'object' && value !== null)
    return here.concat(...Object.entries(value).map(([k, v]) => pathsOf(v, [...prefix, k])));
  return here;
}

// A value in place of a valid one: another type, an edge number, a hostile string, any JSON.
const replacement: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -0, '', [], {}) },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

/**
 * A deep copy of the JSON value `valid` with one to three edits: a field dropped, a field's
 * value replaced, an unknown field (a prototype key among them) added. Most results are one
 * field away from valid, so each of a schema's checks is hit on its own.
 */
export function mutatedJson(valid: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(valid);
  const path = fc.constantFrom(...paths);
  // Each edit draws only what its operation needs: generating is most of a run's time.
  const edit = fc.oneof(
    path.map((p) => ({ path: p, op: 'drop', key: '', value: undefined as unknown })),
    fc.tuple(path, replacement).map(([p, value]) => ({ path: p, op: 'replace', key: '', value })),
    fc
      .tuple(
        path,
        fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra'), hostileString),
        replacement,
      )
      .map(([p, key, value]) => ({ path: p, op: 'add', key, value })),
  );
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    let root = structuredClone(valid) as unknown;
    // Each value cloned: a constant `{}` is one object, and an edit may add a key to it.
    for (const { path, op, key, value } of edits)
      root = applyEdit(root, path, op, key, structuredClone(value));
    return root;
  });
}

type Node = Record<string | number, unknown>;

function nodeAt(root: unknown, path: Path): Node | undefined {
  let node = root;
  for (const step of path) node = (node as Node | undefined)?.[step];
  return typeof node === 'object' && node !== null ? (node as Node) : undefined;
}

function applyEdit(root: unknown, path: Path, op: string, key: string, value: unknown): unknown {
  if (op === 'add') {
    const target = nodeAt(root, path);
    // defineProperty, so `__proto__` becomes an own key, as JSON.parse makes it.
    if (target !== undefined && !Array.isArray(target))
      Object.defineProperty(target, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return root;
  }
  if (path.length === 0) return op === 'replace' ? value : root;
  const parent = nodeAt(root, path.slice(0, -1)); // undefined: an earlier edit moved it
  const last = path.at(-1) as string | number;
  if (parent === undefined) return root;
  if (op === 'replace') parent[last] = value;
  else if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete parent[last];
  return root;
}

/** Bytes a file reader may meet: noise, a valid text mutated, or that text in bytes cut short. */
export function fileBytes(valid: string): fc.Arbitrary<Buffer> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    mutatedText(valid).map((t) => Buffer.from(t, 'utf8')),
    fc.nat({ max: valid.length }).map((n) => Buffer.from(valid, 'utf8').subarray(0, n)),
  );
}

/** 64 lowercase hex digits (a SHA-256): eight hex digits repeated, as schemas check only the
 *  pattern; drawing 32 random bytes took most of a run's time. */
export const hex64: fc.Arbitrary<string> = fc
  .nat()
  .map((n) => n.toString(16).padStart(8, '0').repeat(8));

/** A string of `alphabet`'s characters: stringMatching's result for a character class, faster. */
export function charsOf(alphabet: string, minLength: number, maxLength: number) {
  return fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });
}

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
