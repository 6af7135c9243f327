// SEC-05 and SEC-06: the installer's host-wide lock. A live holder keeps it; a holder killed with
// SIGKILL leaves nothing behind (flock: the kernel drops it); anything planted where the lock
// lives (a symlink, a hard link, a directory another user can write) is refused, never followed.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LockHeldError } from '../../src/host/lock.ts';
import { UnsafeLockError, lockRootFile } from '../../src/host/root-lock.ts';
import { executablePath, repoRoot } from '../helpers/executable.ts';
import { makeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

const scratch = mkdtempSync(join(tmpdir(), 'oac-lock-'));
chmodSync(scratch, 0o755);
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Another process that takes the lock, says so, and holds it until killed. */
async function holder(path: string) {
  const code = `import { lockRootFile } from './src/host/root-lock.ts';
await lockRootFile(${JSON.stringify(path)}, { waitMs: 0 });
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

const dirOf = (name: string) => join(scratch, name, 'run', 'oac-node');

test('SEC-05 a live holder keeps the lock: a second taker stops with LockHeldError naming its PID', async (t) => {
  const path = join(dirOf('live'), 'installer.lock');
  const child = await holder(path);
  t.after(() => child.kill('SIGKILL'));
  await assert.rejects(
    lockRootFile(path, { waitMs: 0 }),
    (error) => error instanceof LockHeldError && error.holder === child.pid,
  );
});

test('SEC-05 a waiter takes the lock as soon as the holder ends, within its wait', async () => {
  const path = join(dirOf('wait'), 'installer.lock');
  const child = await holder(path);
  const started = Date.now();
  setTimeout(() => child.kill('SIGTERM'), 500);
  const release = await lockRootFile(path, { waitMs: 10_000 });
  const tookAt = Date.now();
  await release();
  assert.ok(tookAt - started >= 500, 'not before the holder was stopped (at 500 ms)');
  // Well inside the 10 s wait: flock wakes on release; no polling interval to wait out.
  assert.ok(tookAt - started < 3000, `taken ${tookAt - started} ms after asking`);
});

test('RERUN-04 a holder killed with SIGKILL: its lock is free at once, with nothing to clean up', async () => {
  const path = join(dirOf('killed'), 'installer.lock');
  const child = await holder(path);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const release = await lockRootFile(path, { waitMs: 0 });
  await assert.rejects(lockRootFile(path, { waitMs: 0 }), LockHeldError, 'and now it is ours');
  await release();
  const again = await lockRootFile(path, { waitMs: 0 });
  await again();
});

test('SEC-06 the lock directory is made 0700: an unprivileged user can create nothing in it', async () => {
  const dir = dirOf('private');
  const release = await lockRootFile(join(dir, 'installer.lock'), { waitMs: 0 });
  await release();
  const attempt = spawnSync(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', 'mkdir', join(dir, 'x')],
    { encoding: 'utf8' },
  );
  assert.notEqual(attempt.status, 0, 'nobody cannot write into the lock directory');
  assert.match(attempt.stderr, /Permission denied/);
});

test('SEC-06 a symlink planted as the lock is refused and its target left untouched', async () => {
  const dir = dirOf('symlink');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const victim = join(scratch, 'victim');
  writeFileSync(victim, 'precious\n');
  symlinkSync(victim, join(dir, 'installer.lock'));
  await assert.rejects(
    lockRootFile(join(dir, 'installer.lock'), { waitMs: 0 }),
    (error) => error instanceof UnsafeLockError && /symbolic link/.test(error.reason),
  );
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
});

test('SEC-06 a hard link planted as the lock is refused and its other name left untouched', async () => {
  const dir = dirOf('hardlink');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const victim = join(dir, 'victim');
  writeFileSync(victim, 'precious\n');
  linkSync(victim, join(dir, 'installer.lock'));
  await assert.rejects(lockRootFile(join(dir, 'installer.lock'), { waitMs: 0 }), UnsafeLockError);
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
});

for (const [name, plant] of [
  ['writable by others', (dir: string) => chmodSync(dir, 0o777)],
  ['owned by another user', (dir: string) => chownSync(dir, 65534, 65534)],
  [
    'a symlink to a directory',
    (dir: string) => {
      rmSync(dir, { recursive: true });
      mkdirSync(`${dir}-elsewhere`, { mode: 0o700 });
      symlinkSync(`${dir}-elsewhere`, dir);
    },
  ],
] as const) {
  test(`SEC-06 a lock directory ${name} is refused, and nothing is created in it`, async () => {
    const dir = dirOf(name.replaceAll(' ', '-'));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    plant(dir);
    await assert.rejects(lockRootFile(join(dir, 'installer.lock'), { waitMs: 0 }), UnsafeLockError);
    assert.equal(spawnSync('ls', ['-A', `${dir}/`], { encoding: 'utf8' }).stdout, '');
  });
}

// The built executable, as an operator meets it: one line and a non-zero exit, no stack trace,
// and the scratch host untouched.
function runUninstall(root: string) {
  return spawnSync(
    executablePath,
    ['uninstall', '--installation-id', 'inst-1', '--force', '--root', root],
    { encoding: 'utf8', input: '', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
}

test('SEC-05 a second uninstaller waits, then stops in one line naming the holder, and changes nothing', async (t) => {
  const root = makeScratchRoot();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const child = await holder(join(root, 'run/oac-node/installer.lock'));
  t.after(() => child.kill('SIGKILL'));
  const before = treeOf(root);
  const r = runUninstall(root);
  assert.equal(r.status, 1, r.stderr);
  assert.match(
    r.stderr,
    new RegExp(`^oac-node: Another oac-node installer .* \\(PID ${child.pid}\\)`),
  );
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
  assert.deepEqual(treeOf(root), before);
});

test('SEC-06 a lock directory planted as a symlink stops the uninstaller in one line, following nothing', (t) => {
  const root = makeScratchRoot();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'elsewhere'), { mode: 0o700 });
  symlinkSync(join(root, 'elsewhere'), join(root, 'run/oac-node'));
  const before = treeOf(root);
  const r = runUninstall(root);
  assert.equal(r.status, 1, r.stderr);
  assert.match(
    r.stderr,
    /^oac-node: The installer's lock \/run\/oac-node\/installer\.lock is not a directory/,
  );
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
  assert.deepEqual(treeOf(root), before);
});
