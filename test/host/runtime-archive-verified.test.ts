// Issue #41's rule for the Runtime archive (DL-07, SEC-04): no byte of it reaches Docker's
// `images/load`, or any parser, before the whole archive's size and SHA-256 match the manifest.
// The reference Core serves the archive with one byte flipped; the real `_prepare` (as oac-node,
// against a private real dockerd seen through a recorder) downloads it, refuses it, and Docker
// is never asked to load it; its image store and the node's files are as before. With the byte
// put back, the rerun converges and Docker loads the archive once.
import assert from 'node:assert/strict';
import { existsSync, openSync, readSync, readdirSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { issueToken } from '../helpers/node.ts';
import { recordDocker, type DockerRecorder } from '../helpers/docker-recorder.ts';
import {
  outcomes,
  prepareRequest,
  runPrepare,
  startPrepareFixture,
  type PrepareFixture,
} from '../helpers/prepare.ts';

let fixture: PrepareFixture;
let recorder: DockerRecorder;
before(async () => {
  fixture = await startPrepareFixture('verified');
  const upstream = fixture.dockerd.host.replace(/^unix:\/\//, '');
  recorder = await recordDocker(
    upstream,
    join(fixture.scratch, 'recorded.sock'),
    fixture.dockerGid,
  );
});
after(async () => {
  await recorder?.close();
  await fixture?.stop();
});

/** Flips the byte at `offset` of `path` (its size stays the manifest's). */
function flipByte(path: string, offset: number): void {
  const fd = openSync(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, offset);
    byte[0] = (byte[0] as number) ^ 0xff;
    writeSync(fd, byte, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}

const images = () => fixture.dockerd.docker(['image', 'ls', '-aq', '--no-trunc']).stdout;

test('DL-07 SEC-04 a Runtime archive with one byte flipped reaches no parser: Docker is never asked to load it, its images and the node files are unchanged; the byte put back, the rerun loads it once', async () => {
  const { core, release, scratch, exe, dockerGid } = fixture;
  const file = release.manifest.files.find((f) => f.kind === 'runtime-image');
  assert.ok(file?.kind === 'runtime-image');
  const served = join(release.outDir, file.name);
  const middle = Math.floor(file.size / 2);
  flipByte(served, middle);
  const before = images();
  const token = await issueToken(core);
  const request = {
    ...(await prepareRequest(core, scratch, 'flipped', token, { docker_host: recorder.host })),
  };
  try {
    const refused = await runPrepare(exe, dockerGid, request);
    assert.notEqual(refused.status, 0);
    const failed = refused.events.find((e) => e.type === 'step-failed');
    assert.equal(failed?.step, 'runtime', JSON.stringify(refused.events));
    assert.equal(failed?.code, 'download_corrupt');
    // The recorder saw the node half ask Docker (so it would have seen a load), never to load.
    assert.ok(
      recorder.requests.some((r) => /^GET \S*\/images\/\S+\/json$/.test(r)),
      `the image was asked for: ${recorder.requests.join(', ')}`,
    );
    assert.ok(
      !recorder.requests.some((r) => r.includes('/images/load')),
      recorder.requests.join(', '),
    );
    assert.equal(images(), before, "Docker's images are as before");
    const files = join(request.state_dir, 'files');
    const left = existsSync(files) ? readdirSync(files) : [];
    assert.deepEqual(left, [], 'neither the archive nor its part is kept');
  } finally {
    flipByte(served, middle);
  }

  const rerun = await runPrepare(exe, dockerGid, request);
  assert.equal(rerun.status, 0, rerun.stderr + JSON.stringify(rerun.events));
  assert.equal(outcomes(rerun).runtime, 'created');
  assert.equal(recorder.requests.filter((r) => r.includes('/images/load')).length, 1);
  assert.notEqual(images(), before, 'the verified archive was loaded');
});
