// The release builder (fixtures/release/) against docs/release-manifest.md: every file listed with
// its exact size and SHA-256, checked with the real `sha256sum -c`, plain file names only, and
// byte-identical rebuilds. Docker is exercised in release-image.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { execa } from 'execa';
import { writeFakeDist, type FakeDist } from '../../fixtures/release/fake-dist.ts';
import { buildRelease, type BuiltRelease } from '../../fixtures/release/main.ts';
import { fileNameSchema, releaseManifestSchema } from '../../fixtures/release/manifest-schema.ts';

const VERSION = '0.1.0';
const CREATED_AT = new Date('2026-11-29T10:00:00.000Z');

describe('release builder', () => {
  let work: string;
  let dist: FakeDist;
  let built: BuiltRelease;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'oac-release-'));
    dist = await writeFakeDist(join(work, 'dist'), 'builder');
    built = await buildRelease({
      ...dist,
      outDir: join(work, 'out'),
      version: VERSION,
      createdAt: CREATED_AT,
    });
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('DL-01 manifest.json parses with the schema and names the release <version>-<12 hex>', async () => {
    const manifest = releaseManifestSchema.parse(
      await readJson(join(built.outDir, 'manifest.json')),
    );
    const exeHash = sha256(await readFile(dist.executable));
    assert.equal(manifest.release, `${VERSION}-${exeHash.slice(0, 12)}`);
    assert.equal(manifest.created_at, CREATED_AT.toISOString());
    assert.deepEqual(
      manifest.files.map((f) => f.kind),
      [
        'node-program',
        'runtime-image',
        'microsandbox-runtime',
        'microsandbox-firmware',
        'microsandbox-helper',
      ],
    );
    assert.deepEqual(manifest, built.manifest);
  });

  it('DL-01 every listed file has exactly the size and SHA-256 the manifest records', async () => {
    for (const file of built.manifest.files) {
      const data = await readFile(join(built.outDir, file.name));
      assert.equal(data.length, file.size, `${file.name} size`);
      assert.equal(sha256(data), file.sha256, `${file.name} sha256`);
    }
    // Nothing unlisted beside them: the directory is exactly the documented layout.
    const names = built.manifest.files.map((f) => f.name);
    assert.deepEqual(
      (await readdir(built.outDir)).sort(),
      [...names, 'SHA256SUMS', 'manifest.json', 'node-install'].sort(),
    );
    assert.deepEqual((await readdir(join(built.outDir, 'node-install'))).sort(), [
      'SHA256SUMS',
      'oac-node.gz',
    ]);
  });

  it('DL-01 BOOT-03 SHA256SUMS files pass the real sha256sum -c and match the manifest; node-install lists the executable too', async () => {
    const sums = await readFile(join(built.outDir, 'SHA256SUMS'), 'utf8');
    assert.equal(sums, built.manifest.files.map((f) => `${f.sha256}  ${f.name}\n`).join(''));
    await execa('sha256sum', ['--strict', '-c', 'SHA256SUMS'], { cwd: built.outDir });
    // node-install/ serves the gzip only; its SHA256SUMS also names the executable, whose
    // checksum the one-line command embeds (BOOT-03): --ignore-missing for that line.
    const installDir = join(built.outDir, 'node-install');
    const checked = await execa('sha256sum', ['--strict', '--ignore-missing', '-c', 'SHA256SUMS'], {
      cwd: installDir,
    });
    assert.equal(checked.stdout, 'oac-node.gz: OK');
    const gz = await readFile(join(installDir, 'oac-node.gz'));
    assert.equal(
      await readFile(join(installDir, 'SHA256SUMS'), 'utf8'),
      `${sha256(gunzipSync(gz))}  oac-node\n${sha256(gz)}  oac-node.gz\n`,
    );
  });

  it('DL-01 node-install/oac-node.gz and the node program unpack to the executable', async () => {
    const executable = await readFile(dist.executable);
    const program = built.manifest.files.find((f) => f.kind === 'node-program');
    assert.ok(program);
    for (const path of [
      join(built.outDir, 'node-install/oac-node.gz'),
      join(built.outDir, program.name),
    ]) {
      assert.ok(gunzipSync(await readFile(path)).equals(executable), path);
    }
    // The helper is a real executable script.
    const helper = built.manifest.files.find((f) => f.kind === 'microsandbox-helper');
    assert.ok(helper);
    const { stdout } = await execa(join(built.outDir, helper.name));
    assert.equal(stdout, `oac microsandbox helper ${built.release}`);
  });

  it('SEC-04 every manifest file name is one plain file name', () => {
    for (const { name } of built.manifest.files) {
      assert.ok(!name.includes('/') && !name.includes('..') && !name.includes('\0'), name);
      assert.ok(Buffer.byteLength(name) <= 255, name);
    }
  });

  it('SEC-04 the manifest schema refuses names with "/", "..", NUL or over 255 bytes', () => {
    for (const bad of [
      'a/b',
      '/etc/passwd',
      '..',
      '../x',
      'x..y',
      'a\0b',
      'é'.repeat(128),
      '',
      '.',
    ]) {
      assert.equal(fileNameSchema.safeParse(bad).success, false, JSON.stringify(bad));
    }
    const good = built.manifest;
    const withBadName = { ...good, files: [{ ...good.files[0], name: '../oac-node.gz' }] };
    assert.equal(releaseManifestSchema.safeParse(withBadName).success, false);
    assert.equal(releaseManifestSchema.safeParse({ ...good, format: 2 }).success, false);
  });

  it('DL-01 rebuilding the same inputs gives byte-identical files', async () => {
    const again = await buildRelease({
      ...dist,
      outDir: join(work, 'again'),
      version: VERSION,
      createdAt: CREATED_AT,
    });
    const first = await treeBytes(built.outDir);
    const second = await treeBytes(again.outDir);
    assert.deepEqual([...second.keys()], [...first.keys()]);
    for (const [path, data] of first) assert.ok(data.equals(second.get(path) as Buffer), path);
  });

  it('rebuilding into an existing directory replaces it whole and leaves no temporary', async () => {
    const outDir = join(work, 'replace');
    await buildRelease({ ...dist, outDir, version: VERSION, createdAt: CREATED_AT });
    await writeFile(join(outDir, 'stale-file'), 'from an older release');
    const rebuilt = await buildRelease({
      ...dist,
      outDir,
      version: '0.1.1',
      createdAt: CREATED_AT,
    });
    const names = await readdir(outDir);
    assert.ok(!names.includes('stale-file'));
    assert.equal(
      releaseManifestSchema.parse(await readJson(join(outDir, 'manifest.json'))).release,
      rebuilt.release,
    );
    const siblings = await readdir(dirname(outDir));
    assert.deepEqual(
      siblings.filter((n) => n.startsWith('replace.')),
      [],
    );
    assert.equal((await stat(join(outDir, 'SHA256SUMS'))).mtime.getTime(), CREATED_AT.getTime());
  });

  it('refuses a stale oac-node.gz and a missing busybox with one line saying what to run', async () => {
    const stale = await writeFakeDist(join(work, 'stale'), 'stale');
    await writeFile(stale.executableGz, (await readFile(dist.executableGz)) as Uint8Array);
    await assert.rejects(
      buildRelease({ ...stale, outDir: join(work, 'stale-out'), version: VERSION }),
      /does not unpack to .*: rebuild both with 'npm run build'$/,
    );
    await assert.rejects(
      buildRelease({
        ...dist,
        outDir: join(work, 'no-bb'),
        version: VERSION,
        busybox: join(work, 'nope'),
      }),
      /^Error: static busybox not found at .*: run 'apt-get install busybox-static'$/,
    );
    // A dynamically linked executable is no busybox for an image without libc.
    await assert.rejects(
      buildRelease({
        ...dist,
        outDir: join(work, 'no-bb'),
        version: VERSION,
        busybox: process.execPath,
      }),
      /is not a statically linked executable: run 'apt-get install busybox-static'$/,
    );
    assert.deepEqual(
      (await readdir(work)).filter((n) => /stale-out|no-bb/.test(n)),
      [],
    );
  });
});

async function treeBytes(root: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(path.slice(root.length), await readFile(path));
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'));
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
