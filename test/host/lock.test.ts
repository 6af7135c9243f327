// SEC-05 and NODE-03 locks: a live holder keeps its lock; a holder killed with SIGKILL (which
// cannot release) leaves a lock the next run takes over at once, instead of waiting for it to go
// stale (RERUN-04: running the command again continues).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LockHeldError, lockFile } from '../../src/host/lock.ts';
import { repoRoot } from '../helpers/executable.ts';

const scratch = mkdtempSync(join(tmpdir(), 'oac-lock-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Another process that takes the lock, says so, and holds it until killed. */
async function holder(path: string) {
  const code = `import { lockFile } from './src/host/lock.ts';
await lockFile(${JSON.stringify(path)}, { waitMs: 0 });
process.stdout.write('held\\n');
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (status) => reject(new Error(`the holder exited (${status})`)));
  });
  return child;
}

test('SEC-05 a live holder keeps the lock: a second taker stops with LockHeldError', async (t) => {
  const path = join(scratch, 'live');
  const child = await holder(path);
  t.after(() => child.kill('SIGKILL'));
  await assert.rejects(lockFile(path, { waitMs: 0 }), LockHeldError);
});

test('RERUN-04 a holder killed with SIGKILL: its lock is taken over without waiting for staleness', async () => {
  const path = join(scratch, 'killed');
  const child = await holder(path);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  // waitMs 0: no waiting at all, so only the dead-holder rule can let this through (the lock's
  // own staleness takes 10 s).
  const release = await lockFile(path, { waitMs: 0 });
  await assert.rejects(lockFile(path, { waitMs: 0 }), LockHeldError, 'and now it is ours');
  await release();
});
