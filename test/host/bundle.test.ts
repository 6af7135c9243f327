// OFFLINE-01: `oac-node bundle`'s work against the reference Core on loopback, and what an
// install checks of a bundle before anything changes: the release Core names, every file the
// provider takes, each of the manifest's size and SHA-256. GNU tar reads the bundle as the
// pasted line does; a copy out of it is verified and never written through a planted link.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  readBundle,
  verifyBundle,
  BUNDLE_INSTALLER,
  type Bundle,
} from '../../src/bundle/bundle.ts';
import { makeBundle } from '../../src/bundle/make-bundle.ts';
import { copyEntry, openBundleFile } from '../../src/host/bundle-file.ts';
import { isOacError } from '../../src/errors.ts';
import { makeReleaseDir, startCore, type SampleRelease, type TestCore } from '../helpers/core.ts';

let release: SampleRelease;
let core: TestCore;
let dir: string;
let bundlePath: string;

before(async () => {
  release = await makeReleaseDir();
  core = await startCore(['--release-dir', release.dir]);
  dir = await mkdtemp(join(tmpdir(), 'oac-bundle-'));
  bundlePath = join(dir, 'release.bundle');
  await makeBundle({
    consoleUrl: core.console_url,
    release: release.release,
    out: bundlePath,
    log: () => {},
  });
});
after(async () => {
  await core.stop();
  await release.cleanup();
  await rm(dir, { recursive: true, force: true });
});

async function withBundle<T>(path: string, fn: (b: Bundle) => Promise<T>): Promise<T> {
  const file = await openBundleFile(path);
  try {
    return await fn(await readBundle(file.fd, file.size, path));
  } finally {
    await file.close();
  }
}

const codeOf = (error: unknown) => (isOacError(error) ? error.code : String(error));

test('OFFLINE-01 the bundle holds the manifest, the installer under a fixed name and every node file; tar lists it', async () => {
  const listed = execFileSync('tar', ['-tf', bundlePath], { encoding: 'utf8' }).trim().split('\n');
  const program = release.files.find((f) => f.kind === 'node-program');
  const others = release.files.filter((f) => f.kind !== 'node-program').map((f) => f.name);
  assert.deepEqual(listed, ['manifest.json', BUNDLE_INSTALLER, ...others]);
  // What the pasted line does with it: the installer is the manifest's node program.
  const installer = execFileSync('tar', ['-xOf', bundlePath, BUNDLE_INSTALLER]);
  assert.ok(program !== undefined && installer.equals(program.data));
  await withBundle(bundlePath, (b) => verifyBundle(b, release.release, 'microsandbox'));
  const names = await readdirNames(dir);
  assert.deepEqual(names, ['release.bundle'], 'the work directory is gone');
});

test('OFFLINE-01 a bundle of another release is refused in one line naming both releases', async () => {
  await assert.rejects(
    withBundle(bundlePath, (b) => verifyBundle(b, '0.2.0-ffffffffffff', 'docker')),
    (error: unknown) => {
      assert.equal(codeOf(error), 'bundle_other_release');
      assert.match(
        (error as Error).message,
        /holds release 0\.1\.0-0123456789ab, but Core's configuration names release 0\.2\.0-ffffffffffff$/,
      );
      return true;
    },
  );
});

test('OFFLINE-01 one flipped byte in a node file: bundle_damaged naming the file', async () => {
  const damaged = join(dir, 'damaged.bundle');
  const bytes = await readFile(bundlePath);
  const image = release.files.find((f) => f.kind === 'runtime-image');
  const at = bytes.indexOf(image?.data.subarray(0, 64) ?? Buffer.alloc(0));
  assert.ok(at > 0);
  bytes[at + 100] = (bytes[at + 100] ?? 0) ^ 0xff;
  await writeFile(damaged, bytes);
  await assert.rejects(
    withBundle(damaged, (b) => verifyBundle(b, release.release, 'docker')),
    (error: unknown) =>
      codeOf(error) === 'bundle_damaged' && (error as Error).message.includes(image?.name ?? '?'),
  );
});

test('OFFLINE-01 a cut or foreign file is no bundle; a docker-only bundle lacks what microsandbox takes', async () => {
  const cut = join(dir, 'cut.bundle');
  await writeFile(cut, (await readFile(bundlePath)).subarray(0, 5000));
  await assert.rejects(
    withBundle(cut, async () => undefined),
    (e: unknown) => codeOf(e) === 'bundle_unreadable',
  );
  const foreign = join(dir, 'foreign.bundle');
  await writeFile(foreign, Buffer.alloc(4096, 0x41));
  await assert.rejects(
    withBundle(foreign, async () => undefined),
    (e: unknown) => codeOf(e) === 'bundle_unreadable',
  );
  const slim = join(dir, 'docker.bundle');
  await makeBundle({
    consoleUrl: core.console_url,
    release: release.release,
    out: slim,
    provider: 'docker',
    log: () => {},
  });
  await withBundle(slim, (b) => verifyBundle(b, release.release, 'docker'));
  await assert.rejects(
    withBundle(slim, (b) => verifyBundle(b, release.release, 'microsandbox')),
    (e: unknown) => codeOf(e) === 'bundle_incomplete',
  );
});

test('OFFLINE-01 a copy out of the bundle is verified, and a link planted at its part file is replaced, not followed', async () => {
  const target = join(dir, 'victim');
  await writeFile(target, 'untouched');
  const dest = join(dir, 'copied.bin');
  await symlink(target, `${dest}.part`);
  const file = release.files.find((f) => f.kind === 'microsandbox-runtime');
  assert.ok(file !== undefined);
  const found = await withBundle(bundlePath, async (b) => {
    const entry = b.entries.get(file.name);
    assert.ok(entry !== undefined);
    return copyEntry(b.fd, entry, dest, file.sha256, () => {});
  });
  assert.equal(found, undefined);
  assert.ok((await readFile(dest)).equals(file.data));
  assert.equal(await readFile(target, 'utf8'), 'untouched');
  // A wrong SHA-256: nothing becomes the destination.
  const other = join(dir, 'other.bin');
  const wrong = await withBundle(bundlePath, async (b) => {
    const entry = b.entries.get(file.name);
    assert.ok(entry !== undefined);
    return copyEntry(b.fd, entry, other, '0'.repeat(64), () => {});
  });
  assert.equal(wrong, file.sha256);
  await assert.rejects(open(other), /ENOENT/);
});

async function readdirNames(path: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(path)).sort();
}
