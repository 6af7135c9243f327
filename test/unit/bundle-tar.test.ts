// OFFLINE-01: the bundle's ustar headers (src/host/tar-header.ts): what is written reads back,
// GNU tar's checksum rule holds, and anything that is not one of our plain entries is refused
// with the offset it was found at.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLOCK, fileHeader, paddingOf, parseHeader } from '../../src/host/tar-header.ts';

test('OFFLINE-01 a header written reads back as the same name and size', () => {
  for (const [name, size] of [
    ['manifest.json', 0],
    ['oac-node.gz', 31_457_280],
    ['a'.repeat(100), 8 ** 11 - 1],
  ] as const) {
    const block = fileHeader(name, size, 1_700_000_000);
    assert.equal(block.length, BLOCK);
    assert.deepEqual(parseHeader(block, 0), { name, size });
  }
});

test('OFFLINE-01 a zero block ends the archive; a flipped byte, another type or a directory does not pass', () => {
  assert.equal(parseHeader(Buffer.alloc(BLOCK), 0), 'end');
  const block = fileHeader('x.bin', 10, 0);
  const flipped = Buffer.from(block);
  flipped[5] = 0x41;
  assert.equal(parseHeader(flipped, 1024), 'a damaged header at byte 1024');
  const short = block.subarray(0, 100);
  assert.equal(parseHeader(short, 0), 'the archive ends inside a header');
  const symlink = Buffer.from(block);
  symlink.write('2', 156, 'latin1');
  fixChecksum(symlink);
  assert.match(String(parseHeader(symlink, 512)), /not a regular file at byte 512/);
  const prefixed = Buffer.from(block);
  prefixed.write('dir', 345, 'latin1');
  fixChecksum(prefixed);
  assert.match(String(parseHeader(prefixed, 0)), /with a directory/);
});

test('OFFLINE-01 names with a slash, empty or over 100 bytes, and sizes past ustar, are refused when writing', () => {
  assert.throws(() => fileHeader('a/b', 1, 0));
  assert.throws(() => fileHeader('', 1, 0));
  assert.throws(() => fileHeader('a'.repeat(101), 1, 0));
  assert.throws(() => fileHeader('big', 8 ** 11, 0));
});

test('OFFLINE-01 padding fills to the next block', () => {
  assert.deepEqual([0, 1, 511, 512, 513].map(paddingOf), [0, 511, 1, 0, 511]);
});

function fixChecksum(block: Buffer): void {
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 'latin1');
}
