// OFFLINE-01: `oac-node bundle`'s work against the reference Core on loopback, and what an
// install checks of a bundle before anything changes: the release Core names, every file the
// provider takes, each of the manifest's size and SHA-256. GNU tar reads the bundle as the
// pasted line does; a copy out of it is verified and never written through a planted link.
// `bundle --json` (FLEET-02, issue #39 item 10) prints one document of docs/schema/bundle.json:
// the bundle's absolute path, size and SHA-256, its manifest's SHA-256 and each entry.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  open,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  bundleFromRoot,
  readBundle,
  verifyBundle,
  BUNDLE_INSTALLER,
  type Bundle,
} from '../../src/bundle/bundle.ts';
import { makeBundle } from '../../src/bundle/make-bundle.ts';
import { copyEntry, openBundleFile } from '../../src/host/bundle-file.ts';
import { isOacError } from '../../src/errors.ts';
import { makeReleaseDir, startCore, type SampleRelease, type TestCore } from '../helpers/core.ts';
import { repoRoot } from '../helpers/executable.ts';
import { assertJsonDocument } from '../helpers/json-contract.ts';

let release: SampleRelease;
let core: TestCore;
let dir: string;
let bundlePath: string;
let manifestSha256: string;

before(async () => {
  release = await makeReleaseDir();
  core = await startCore(['--release-dir', release.dir]);
  dir = await mkdtemp(join(tmpdir(), 'oac-bundle-'));
  bundlePath = join(dir, 'release.bundle');
  ({ manifestSha256 } = await makeBundle({
    consoleUrl: core.console_url,
    release: release.release,
    out: bundlePath,
    emit: () => {},
  }));
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
  await withBundle(bundlePath, (b) =>
    verifyBundle(b, { manifestSha256, release: release.release }, 'microsandbox'),
  );
  const names = await readdirNames(dir);
  assert.deepEqual(names, ['release.bundle'], 'the work directory is gone');
});

test('OFFLINE-01 a bundle of another release is refused in one line naming both releases', async () => {
  await assert.rejects(
    withBundle(bundlePath, (b) =>
      verifyBundle(b, { manifestSha256, release: '0.2.0-ffffffffffff' }, 'docker'),
    ),
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
    withBundle(damaged, (b) =>
      verifyBundle(b, { manifestSha256, release: release.release }, 'docker'),
    ),
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
    emit: () => {},
  });
  await withBundle(slim, (b) =>
    verifyBundle(b, { manifestSha256, release: release.release }, 'docker'),
  );
  await assert.rejects(
    withBundle(slim, (b) =>
      verifyBundle(b, { manifestSha256, release: release.release }, 'microsandbox'),
    ),
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

test('OFFLINE-01 the manifest must be the one the command names: a forged manifest with matching files is refused', async () => {
  // A bundle whose manifest lists a Runtime image of the forger's choosing, consistently.
  const forged = join(dir, 'forged.bundle');
  const bytes = await readFile(bundlePath);
  const text = bytes.toString('latin1');
  const at = text.indexOf('"format"');
  assert.ok(at > 0);
  const flipped = Buffer.from(bytes);
  // One byte of the manifest's JSON whitespace changed: same meaning, another SHA-256.
  const space = flipped.indexOf(0x20, at);
  flipped[space] = 0x09;
  await writeFile(forged, flipped);
  await assert.rejects(
    withBundle(forged, (b) =>
      verifyBundle(b, { manifestSha256, release: release.release }, 'docker'),
    ),
    (e: unknown) => codeOf(e) === 'bundle_manifest_mismatch',
  );
});

test("OFFLINE-01 a bundle rewritten after root checked it: the node half copies against root's manifest and refuses the changed file", async () => {
  const moving = join(dir, 'moving.bundle');
  await writeFile(moving, await readFile(bundlePath));
  const file = release.files.find((f) => f.kind === 'microsandbox-runtime');
  assert.ok(file !== undefined);
  const checked = await withBundle(moving, async (b) => {
    await verifyBundle(b, { manifestSha256, release: release.release }, 'microsandbox');
    return b.manifest;
  });
  // Changed in place after the check (same fd would see it): one byte of that file.
  const bytes = await readFile(moving);
  const at = bytes.indexOf(file.data.subarray(0, 64));
  bytes[at + 10] = (bytes[at + 10] ?? 0) ^ 0xff;
  await writeFile(moving, bytes);
  const handle = await openBundleFile(moving);
  try {
    const b = await bundleFromRoot(handle.fd, handle.size, moving, checked);
    const entry = b.entries.get(file.name);
    assert.ok(entry !== undefined);
    const wanted = checked.files.find((f) => f.name === file.name)?.sha256 ?? '';
    const found = await copyEntry(b.fd, entry, join(dir, 'moved.bin'), wanted, () => {});
    assert.notEqual(found, undefined, 'the copy is refused');
    await assert.rejects(open(join(dir, 'moved.bin')), /ENOENT/);
  } finally {
    await handle.close();
  }
});

test('OFFLINE-01 oac-node bundle refuses a work directory another user planted beside the output', async () => {
  const out = join(dir, 'planted.bundle');
  const work = join(dir, '.planted.bundle.parts');
  await mkdir(work, { mode: 0o700 });
  await chown(work, 65534, 65534);
  await assert.rejects(
    makeBundle({ consoleUrl: core.console_url, release: release.release, out, emit: () => {} }),
    (e: unknown) => codeOf(e) === 'bundle_work_unsafe' && /another user owns it/.test(String(e)),
  );
  await chown(work, 0, 0);
  await chmod(work, 0o777);
  await assert.rejects(
    makeBundle({ consoleUrl: core.console_url, release: release.release, out, emit: () => {} }),
    (e: unknown) =>
      codeOf(e) === 'bundle_work_unsafe' && /its mode is 0777, not 0700/.test(String(e)),
  );
  await assert.rejects(open(out), /ENOENT/);
});

test('OFFLINE-01 FLEET-02 issue #39 item 10 bundle --json: one document with the absolute path, size, SHA-256 and every entry', async () => {
  // Run from the bundle's directory with a relative --out: the document names it absolutely.
  const cli = spawnSync(
    process.execPath,
    [
      ...['--import', import.meta.resolve('tsx'), join(repoRoot, 'src/cli/entry.ts'), 'bundle'],
      ...['--json', '--console-url', core.console_url, '--release', release.release],
      ...['--out', 'cli.bundle'],
    ],
    { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH } },
  );
  assert.equal(cli.status, 0, cli.stderr);
  assertJsonDocument('bundle.json', cli.stdout, 'bundle --json');
  const document = JSON.parse(cli.stdout) as {
    path: string;
    release: string;
    size: number;
    sha256: string;
    manifest_sha256: string;
    files: Array<{ name: string; size: number; sha256: string }>;
  };
  const path = join(dir, 'cli.bundle');
  const bytes = await readFile(path);
  const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
  assert.equal(document.path, path);
  assert.equal(document.release, release.release);
  assert.equal(document.size, bytes.length);
  assert.equal(document.sha256, sha(bytes), 'what sha256sum prints on the host');
  assert.equal(document.manifest_sha256, manifestSha256, "the line's --manifest-sha256");
  // Each entry as tar lists it, with the SHA-256 of the bytes tar takes out.
  const listed = execFileSync('tar', ['-tf', path], { encoding: 'utf8' }).trim().split('\n');
  assert.deepEqual(
    document.files.map((f) => f.name),
    listed,
  );
  for (const entry of document.files) {
    const data = execFileSync('tar', ['-xOf', path, entry.name], { maxBuffer: 1 << 26 });
    assert.equal(entry.size, data.length, entry.name);
    assert.equal(entry.sha256, sha(data), entry.name);
  }
  // The downloads' lines stay on stderr: stdout is the document alone.
  assert.match(cli.stderr, /Downloading /);
});
