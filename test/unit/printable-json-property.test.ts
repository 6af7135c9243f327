// SEC-03, SEC-09, FLEET-02 as a property of printableJson (issue 27 finding 2): whatever strings
// an event carries (quotes, backslashes, `Bearer `, control characters, U+2028, lone surrogates,
// registered secrets, their JSON-escaped and URL-encoded forms, pieces of them), its --json line
// is one line of exactly one JSON value of the same shape, with every secret masked and every
// string that holds none (and no "bearer") intact. The Ansible role reads each line with
// from_json. A seeded generator (mulberry32), no dependency: a failure names the case's seed,
// and PRINTABLE_JSON_SEED=<seed> CASES=1 replays it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { printableJson } from '../../src/ui/printable.ts';
import { Redactor } from '../../src/redact.ts';

const BASE_SEED = Number(process.env.PRINTABLE_JSON_SEED ?? 0x27_0002);
const CASES = Number(process.env.CASES ?? 10_000);

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const int = (rng: Rng, n: number) => Math.floor(rng() * n);
const pick = <T>(rng: Rng, items: readonly T[]): T => items[int(rng, items.length)] as T;

// What a JSON line must escape or a terminal may act on, and what the old redaction tripped on.
const HOSTILE = [
  '"',
  '\\',
  '/',
  "'",
  ',',
  ':',
  '{',
  '}',
  ' ',
  '\t',
  '\n',
  '\r',
  '\u0000',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u202e',
  '\ud800', // lone high surrogate
  '\udc00', // lone low surrogate
  '😀',
  'é',
  '中',
  '*',
  '%',
  'u',
  'n',
];
const FRAGMENTS = [
  'Bearer ',
  'bearer\t',
  'BEARER  ',
  'Authorization: Bearer ',
  '","type":"summary","changed":true}',
  '\\"',
  '\\u2028',
  '\\n',
  '{"a":',
];
// Secrets: no `*` (the mask itself) and at least 8 characters, so a secret cannot be the
// line's own structure by chance; quotes, backslashes and control characters included.
const SECRET_CHARS = [
  ...'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789-_.~+/=',
  '"',
  '\\',
  ' ',
  '%',
  'é',
  '😀',
  '\n',
  '\u2028',
];

function secret(rng: Rng): string {
  let s = '';
  for (let n = 8 + int(rng, 17); s.length < n;) s += pick(rng, SECRET_CHARS);
  return s;
}

/** Every form the Redactor masks a secret in (src/redact.ts). */
const forms = (s: string) => [s, encodeURIComponent(s), JSON.stringify(s).slice(1, -1)];

function text(rng: Rng, secrets: string[]): string {
  let out = '';
  for (let pieces = int(rng, 7); pieces > 0; pieces--) {
    const s = pick(rng, secrets);
    const start = int(rng, s.length);
    switch (int(rng, 9)) {
      case 0:
      case 1:
        out += pick(rng, HOSTILE);
        break;
      case 2:
        out += pick(rng, FRAGMENTS);
        break;
      case 3:
        out += pick(rng, forms(s));
        break;
      case 4: // a piece of a secret (now and then all of it), maybe next to an escape sequence
        out += s.slice(start, start + 1 + int(rng, s.length - start));
        break;
      case 5:
        out += s.slice(1);
        break;
      default:
        out += pick(rng, ['node', 'Core', ' ready', 'oac-runtime:0.1.0']);
    }
  }
  return out;
}

function event(rng: Rng, secrets: string[]): Record<string, unknown> {
  const s = () => text(rng, secrets);
  return {
    type: pick(rng, ['start', 'step-done', 'step-failed', 'note', 'summary', 'error']),
    step: s(),
    message: s(),
    installation_id: s(),
    hint: rng() < 0.3 ? null : s(),
    changed: rng() < 0.5,
    received: int(rng, 1 << 30),
    result: { outcome: 'unchanged', detail: s() },
    kept: Array.from({ length: int(rng, 4) }, s),
  };
}

/** The value with every string replaced by its kind: the shape, keys and all. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  return typeof value;
}

/** Every string in the value, keys included, paired with the one at the same place in `other`. */
function pairs(value: unknown, other: unknown, out: [string, unknown][] = []): [string, unknown][] {
  if (typeof value === 'string') out.push([value, other]);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push([k, k]);
      pairs(v, (other as Record<string, unknown> | null)?.[k], out);
    }
  return out;
}

const LINE_BREAKS = /[\n\r\u2028\u2029]/;
const RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

test('SEC-03 SEC-09 FLEET-02 printableJson: any strings in any field give one line of one JSON event of the same shape, secrets masked, the rest intact', () => {
  for (let i = 0; i < CASES; i++) {
    const seed = (BASE_SEED + i) >>> 0;
    const rng = mulberry32(seed);
    const r = new Redactor();
    const secrets = Array.from({ length: 1 + int(rng, 3) }, () => secret(rng));
    for (const s of secrets) r.add(s);
    const value = event(rng, secrets);
    const why = `seed ${seed} (PRINTABLE_JSON_SEED=${seed} CASES=1): ${JSON.stringify(value)}`;

    const line = printableJson(value, r);
    assert.doesNotMatch(line, LINE_BREAKS, why);
    assert.doesNotMatch(line, RAW, why);
    let parsed: unknown;
    assert.doesNotThrow(() => (parsed = JSON.parse(line)), why);
    assert.deepEqual(shape(parsed), shape(value), why);
    assert.equal((parsed as { type: unknown }).type, value.type, why);

    // No secret in the line outside its escape sequences and quotes (a secret's piece next to
    // `\n` or a string's quote may spell the whole secret with that letter or quote: that is no
    // disclosure; a quote inside a string is written `\"`) ...
    const unescaped = line.replace(/\\(u[0-9a-fA-F]{4}|.)|"/g, '\uffff');
    for (const s of secrets) assert.ok(!unescaped.includes(s), `${why}\nsecret ${s} in ${line}`);
    // ... nor in any string a JSON reader gets; a string with neither a secret nor "bearer"
    // comes back as it was.
    for (const [original, back] of pairs(value, parsed)) {
      assert.equal(typeof back, 'string', why);
      for (const s of secrets) assert.ok(!(back as string).includes(s), `${why}\nsecret ${s}`);
      const clean =
        !/bearer/i.test(original) &&
        secrets.every((s) => forms(s).every((f) => !original.includes(f)));
      if (clean) assert.equal(back, original, why);
      else if (!/bearer/i.test(original)) assert.match(back as string, /\*\*\*/, why);
    }
  }
});

test('SEC-03 printableJson masks a secret in a key too, and leaves the other keys as they were', () => {
  const r = new Redactor();
  r.add('proxy-pass"word\\9');
  const line = printableJson(
    {
      type: 'note',
      by_url: { 'http://u:proxy-pass"word\\9@proxy:3128': 'Bearer abc.def', plain: 'x' },
      list: [{ 'proxy-pass"word\\9': 1 }],
    },
    r,
  );
  assert.ok(!line.includes('pass'), line);
  assert.deepEqual(JSON.parse(line), {
    type: 'note',
    by_url: { 'http://u:***@proxy:3128': 'Bearer ***', plain: 'x' },
    list: [{ '***': 1 }],
  });
});

test('SEC-03 printableJson masks what toJSON returns and a boxed string, as JSON.stringify writes them', () => {
  const r = new Redactor();
  r.add('tok-0123456789');
  const value = {
    type: 'note',
    at: { toJSON: () => 'at tok-0123456789' },
    boxed: new String('Bearer tok-x'),
  };
  assert.deepEqual(JSON.parse(printableJson(value, r)), {
    type: 'note',
    at: 'at ***',
    boxed: 'Bearer ***',
  });
});
