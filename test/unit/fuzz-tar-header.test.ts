// OFFLINE-01, SEC-04 fuzzed (issue #26 item 2): the bundle's tar headers (src/host/tar-header.ts).
// A bundle is a file from outside: parseHeader of any 512 bytes (noise, a valid header with a
// few bytes changed, a block of another length) returns an entry, 'end' or a reason, never
// throws. fileHeader's headers read back as the name and size written, and GNU tar, which the
// pasted line uses (`tar -xOf`), is not asked here: test/unit/bundle-tar.test.ts does that.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { BLOCK, MAX_ENTRY_BYTES, fileHeader, parseHeader } from '../../src/host/tar-header.ts';
import { check, hostileString } from './fuzz-support.ts';

// Names as the bundle's maker takes them from a manifest: plain file names, any Unicode.
const name = fc
  .oneof(
    fc.stringMatching(/^[A-Za-z0-9._-]{1,100}$/),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    hostileString,
  )
  .filter((n) => n !== '' && !n.includes('/') && !n.includes('\u0000'))
  .filter((n) => Buffer.byteLength(n) <= 100);
// Not UTF-8: no header can carry it.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const size = fc.oneof(fc.nat({ max: 4096 }), fc.integer({ min: 0, max: MAX_ENTRY_BYTES }));
const mtime = fc.integer({ min: 0, max: 8 ** 11 - 1 });

test('OFFLINE-01 SEC-04 fileHeader then parseHeader gives back the name and size written', () => {
  check(
    fc.property(name, size, mtime, (n, s, m) => {
      // A name UTF-8 cannot carry (a lone surrogate) is the writer's to refuse, not to change.
      let header: Buffer;
      try {
        header = fileHeader(n, s, m);
      } catch (error) {
        assert.ok(LONE_SURROGATE.test(n), `refused a name UTF-8 can carry: ${JSON.stringify(n)}`);
        assert.match(String(error), /bad entry name/);
        return;
      }
      assert.equal(header.length, BLOCK);
      assert.deepEqual(parseHeader(header, 0), { name: n, size: s });
    }),
  );
});

// A valid header with bytes overwritten: the checksum, the magic, the type, the size field and
// the name are each hit, and a block one byte short or long.
const VALID = fileHeader('runtime-image.tar', 123_456, 0);
const changed = fc
  .array(fc.tuple(fc.nat({ max: BLOCK - 1 }), fc.integer({ min: 0, max: 255 })), {
    minLength: 1,
    maxLength: 4,
  })
  .map((edits) => {
    const block = Buffer.from(VALID);
    for (const [at, byte] of edits) block[at] = byte;
    return block;
  });
const block = fc.oneof(
  changed,
  fc.uint8Array({ minLength: BLOCK, maxLength: BLOCK }).map((b) => Buffer.from(b)),
  fc.uint8Array({ maxLength: BLOCK + 2 }).map((b) => Buffer.from(b)),
  fc.constant(Buffer.alloc(BLOCK)),
);

test('OFFLINE-01 SEC-04 parseHeader of any block returns an entry, end or a reason, never throws', () => {
  check(
    fc.property(block, fc.nat(), (b, offset) => {
      const read = parseHeader(b, offset);
      if (typeof read === 'string') {
        // A reason is a fixed sentence and the offset: nothing of the block reaches a message.
        assert.match(read, /^(end|[a-z][a-z ]+( at byte \d+)?)$/);
        return;
      }
      assert.equal(b.length, BLOCK);
      assert.ok(Number.isSafeInteger(read.size) && read.size >= 0 && read.size <= MAX_ENTRY_BYTES);
      assert.ok(Buffer.byteLength(read.name) <= 3 * 100, 'at most the 100-byte field');
    }),
  );
});
