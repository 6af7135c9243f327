// The Runtime image archive the release builder writes, loaded into a real Docker (start one with
// `bash scripts/dockerd.sh start`): `docker load` must create exactly the image the manifest
// records, and that image must run. The test removes the image again, leaving Docker as it was.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { writeFakeDist } from '../../fixtures/release/fake-dist.ts';
import { buildRelease, PROGRAM_BYTES_LIMIT } from '../../fixtures/release/main.ts';
import type { ReleaseFile } from '../../fixtures/release/manifest-schema.ts';
import {
  dockerLoad,
  imageId,
  inspectImage,
  removeImage,
  requireDocker,
} from '../helpers/docker.ts';

type ImageFile = Extract<ReleaseFile, { kind: 'runtime-image' }>;

describe('release Runtime image in Docker', () => {
  let work: string;
  let outDir: string;
  let files: ReleaseFile[];
  let image: ImageFile;

  before(async () => {
    await requireDocker();
    work = await mkdtemp(join(tmpdir(), 'oac-release-image-'));
    // The PID in the fake makes a release ID (and image tag) no other run uses at the same time.
    const dist = await writeFakeDist(join(work, 'dist'), `image-${process.pid}`);
    const built = await buildRelease({ ...dist, outDir: join(work, 'out'), version: '0.1.0' });
    outDir = built.outDir;
    files = built.manifest.files;
    const found = files.find((f): f is ImageFile => f.kind === 'runtime-image');
    assert.ok(found, 'the manifest lists a runtime-image');
    image = found;
    await removeImage(image.image.reference); // a leftover from a killed run would hide DL-05
  });
  after(async () => {
    if (image !== undefined) await removeImage(image.image.reference);
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('DL-05 docker load creates the image id and reference the manifest records', async () => {
    assert.equal(await imageId(image.image.reference), undefined);
    const loaded = await dockerLoad(join(outDir, image.name));
    assert.deepEqual(loaded, [image.image.reference]);
    const inspect = await inspectImage(image.image.reference);
    assert.equal(inspect.Id, image.image.id);
    assert.deepEqual(inspect.RepoTags, [image.image.reference]);
    // PRE-07 sizes the free-disk check from unpacked_size: it must cover what Docker unpacked.
    assert.ok(
      image.image.unpacked_size >= inspect.Size,
      `${image.image.unpacked_size} < ${inspect.Size}`,
    );
  });

  it('DL-05 loading the same archive again keeps the same image id', async () => {
    await dockerLoad(join(outDir, image.name));
    assert.equal(await imageId(image.image.reference), image.image.id);
  });

  it('DL-06 the image runs busybox with no network, after its archive is deleted', async () => {
    await rm(join(outDir, image.name));
    const ref = image.image.reference;
    await execa('docker', ['run', '--rm', '--network', 'none', ref, 'busybox', 'true']);
    const { stdout } = await execa('docker', [
      'run',
      '--rm',
      '--network',
      'none',
      ref,
      'sh',
      '-c',
      'test -x /bin/busybox && test -L /bin/sh && id -un',
    ]);
    assert.equal(stdout, 'root');
  });

  it('DL-06 the programs a node keeps (executable, microsandbox files) stay under 0.2 GB', () => {
    const programs = files.filter((f) => f.kind !== 'runtime-image');
    const total = programs.reduce((sum, f) => sum + f.size, 0);
    assert.ok(total < PROGRAM_BYTES_LIMIT, `${total} bytes`);
  });
});
