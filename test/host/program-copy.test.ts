// Issue #27.6 (HOST-03, SEC-02): the node program is copied from the running installer, whose
// SHA-256 the plan names. A copy that hashes to anything else (the source swapped between its
// hash and the copy) is removed before it is renamed into place: one line, nothing installed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileDriver } from '../../src/resources/drivers/file.ts';
import type { FileResource } from '../../src/resources/resources.ts';
import { isOacError } from '../../src/errors.ts';
import { Host } from '../../src/host/host.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';

const root = mkdtempSync(join(tmpdir(), 'oac-copy-'));
after(() => rmSync(root, { recursive: true, force: true }));

const names = layout(parseInstallationId('copy-test'));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ctx = { host: new Host(root), layout: names, emit: () => undefined };

function program(source: string, wanted: string): FileResource {
  return {
    kind: 'file',
    key: 'program',
    phase: 'program',
    title: 'Node program',
    path: names.program,
    mode: 0o755,
    sha256: wanted,
    copyFrom: source,
  };
}

test('HOST-03 SEC-02 a program copy other than the plan wants is refused in one line and never installed', async () => {
  mkdirSync(join(root, names.programDir), { recursive: true });
  const source = join(root, 'installer');
  writeFileSync(source, 'a swapped executable\n');
  const r = program(source, sha256('the executable that was hashed\n'));
  const action = { kind: 'create', detail: `write ${r.path}` } as const;
  await assert.rejects(fileDriver.apply!(r, action, { exists: false }, ctx), (error: unknown) => {
    assert.ok(isOacError(error), String(error));
    assert.equal(error.code, 'program_copy_mismatch');
    assert.match(error.message, new RegExp(`has SHA-256 ${sha256('a swapped executable\n')}`));
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
  assert.equal(existsSync(join(root, names.program)), false, 'nothing installed');
  assert.deepEqual(readdirSync(join(root, names.programDir)), [], 'no temporary file left');
});

test('HOST-03 the copy the plan wants is installed with its mode', async () => {
  const source = join(root, 'installer-ok');
  writeFileSync(source, 'the executable\n');
  const r = program(source, sha256('the executable\n'));
  const action = { kind: 'create', detail: `write ${r.path}` } as const;
  const result = await fileDriver.apply!(r, action, { exists: false }, ctx);
  assert.equal(result.outcome, 'created');
  const probed = await fileDriver.probe(r, ctx);
  assert.equal(probed.sha256, sha256('the executable\n'));
  assert.equal(probed.mode, 0o755);
});
