// OPS-03: a closed terminal can fail a write before its SIGHUP arrives. A write that fails
// (EIO from a hung-up terminal, EPIPE from a closed pipe) stops the run between two steps as a
// SIGHUP does; it never kills the command, which would leave its node half without a reader.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const child = fileURLToPath(new URL('../helpers/output-lost-child.ts', import.meta.url));

test('OPS-03 the output gone (its pipe closed) stops the run as a hangup does, with no crash', async () => {
  const run = spawn(process.execPath, ['--import', 'tsx', child], { stdio: 'pipe' });
  let stderr = '';
  run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  run.stdout.once('data', () => run.stdout.destroy());
  const status = await new Promise<number | null>((resolve) => run.once('close', resolve));
  assert.doesNotMatch(stderr, /EPIPE|Error:|at /, 'no crash on the broken pipe');
  assert.equal(
    stderr,
    'stopped: interrupted: Interrupted (SIGHUP): the run stopped between two steps\n',
  );
  assert.equal(status, 0);
});
