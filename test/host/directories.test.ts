// REL-01 (issue #38): a file where a directory of ours belongs, here or above it, is one line
// naming that file (not_a_directory), never a raw ENOTDIR or EEXIST with a stack.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { OacError } from '../../src/errors.ts';
import { ensureDirectory } from '../../src/host/files.ts';

const dir = mkdtempSync(join(tmpdir(), 'oac-dirs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('REL-01 issue #38 ensureDirectory names the file that stands where a directory belongs, at the path or above it', async () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  const named = (path: string) => (e: unknown) =>
    e instanceof OacError &&
    e.code === 'not_a_directory' &&
    e.message === `${path} exists and is not a directory (a link or a file)`;
  await assert.rejects(ensureDirectory(file, 0o700), named(file), 'at the path');
  await assert.rejects(ensureDirectory(join(file, 'x', 'y'), 0o700), named(file), 'above it');
  assert.equal(await ensureDirectory(join(dir, 'made', 'below'), 0o700), 'created');
  assert.ok(existsSync(join(dir, 'made', 'below')));
});
