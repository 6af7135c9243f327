// SEC-04, OFFLINE-01 fuzzed (issue #26 item 2): the release manifest's schema
// (src/net/release-manifest.ts), which every reader of a manifest (the console's answer, a
// bundle's manifest.json, the node half's request) parses with. For any JSON (a valid manifest
// with a field dropped, changed or added, or anything else) safeParse answers and never throws,
// and whatever it accepts keeps SEC-04's promise: every file name is one plain name that stays
// the same name on disk. A manifest written as JSON reads back equal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { releaseManifestSchema } from '../../src/net/release-manifest.ts';
import {
  ALNUM,
  charsOf,
  check,
  hex64,
  hostileString,
  mutatedJson,
  mutatedText,
} from './fuzz-support.ts';

const plain = (n: string) =>
  n !== '.' && !n.includes('/') && !n.includes('..') && !n.includes('\u0000');
const fileName = fc.oneof(
  fc
    .tuple(charsOf(ALNUM, 1, 1), charsOf(`${ALNUM}._-`, 0, 40))
    .map(([a, b]) => a + b)
    .filter(plain),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter(plain),
);
const size = fc.nat();

const runtimeImage = fc.record({
  name: fileName,
  size,
  sha256: hex64,
  kind: fc.constant('runtime-image' as const),
  provider: fc.constant('any' as const),
  image: fc.record(
    {
      reference: fc
        .tuple(charsOf('abcdefghijklmnopqrstuvwxyz0123456789', 1, 10), charsOf(`${ALNUM}_`, 1, 10))
        .map(([path, tag]) => `${path}:${tag}`),
      id: hex64.map((h) => `sha256:${h}`),
      unpacked_size: size,
      manifest_digest: hex64.map((h) => `sha256:${h}`),
    },
    { requiredKeys: ['reference', 'id', 'unpacked_size'] },
  ),
});
const plainFile = fc.record({
  name: fileName,
  size,
  sha256: hex64,
  kind: fc.constantFrom('microsandbox-runtime', 'microsandbox-firmware', 'microsandbox-helper'),
  provider: fc.constant('microsandbox'),
});
const program = fc.record({
  name: fileName,
  size,
  sha256: hex64,
  kind: fc.constant('node-program'),
  provider: fc.constant('any'),
});

/** Manifests the release builder could write. */
const manifest = fc.record({
  format: fc.constant(1),
  release: charsOf(`${ALNUM}._-`, 1, 64),
  created_at: fc
    .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
    .map((d) => d.toISOString()),
  files: fc.uniqueArray(fc.oneof(runtimeImage, plainFile, program), {
    minLength: 1,
    maxLength: 5,
    selector: (f) => f.name,
  }),
});

// Fewer than the robustness runs: a valid manifest costs more to draw than it does to check,
// and the 10 000 above already run the schema on near-valid ones.
const ROUND_TRIPS = 2_000;

const EXAMPLE = {
  format: 1,
  release: '0.1.0-0123456789ab',
  created_at: '2026-01-02T03:04:05.000Z',
  files: [
    { name: 'oac-node', size: 1, sha256: 'a'.repeat(64), kind: 'node-program', provider: 'any' },
    {
      name: 'oac-runtime.tar',
      size: 2,
      sha256: 'b'.repeat(64),
      kind: 'runtime-image',
      provider: 'any',
      image: { reference: 'oac-runtime:1', id: `sha256:${'c'.repeat(64)}`, unpacked_size: 3 },
    },
  ],
};

// The three files microsandbox adds, so each kind's own fields are mutated too.
const MICROSANDBOX = {
  ...EXAMPLE,
  files: [
    ...EXAMPLE.files,
    ...['runtime', 'firmware', 'helper'].map((k, i) => ({
      name: `msb-${k}`,
      size: i,
      sha256: 'd'.repeat(64),
      kind: `microsandbox-${k}`,
      provider: 'microsandbox',
    })),
  ],
};

/** What a reader hands the schema: JSON.parse of bytes, or undefined when they are no JSON. */
function parsedText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const input: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: mutatedJson(EXAMPLE) },
  { weight: 2, arbitrary: mutatedJson(MICROSANDBOX) },
  { weight: 2, arbitrary: mutatedText(JSON.stringify(EXAMPLE)).map(parsedText) },
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: hostileString },
);

test('SEC-04 OFFLINE-01 the release manifest schema answers for any JSON and accepts only plain file names', () => {
  check(
    fc.property(input, (json) => {
      const parsed = releaseManifestSchema.safeParse(json);
      if (!parsed.success) {
        assert.ok(parsed.error.issues.length > 0);
        return;
      }
      const names = parsed.data.files.map((f) => f.name);
      assert.equal(new Set(names).size, names.length, 'names are unique');
      for (const name of names) {
        assert.ok(name !== '' && name !== '.' && !name.includes('/') && !name.includes('..'));
        assert.ok(!name.includes('\u0000'));
        // The name a file gets on disk (fs and tar headers write UTF-8) is the name listed.
        assert.equal(Buffer.from(name, 'utf8').toString('utf8'), name);
      }
    }),
  );
});

test('SEC-04 OFFLINE-01 a manifest written as JSON reads back equal', () => {
  check(
    fc.property(manifest, (m) => {
      const written = JSON.stringify(m);
      const parsed = releaseManifestSchema.safeParse(JSON.parse(written));
      assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues[0]));
      assert.equal(JSON.stringify(parsed.data), written);
    }),
    ROUND_TRIPS,
  );
});
