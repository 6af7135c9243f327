// The install work done as oac-node (HOST-04, HOST-07, HOST-08, DL-05, DL-06, ENR-02): the real
// executable's `_prepare`, started like the installer starts it (setpriv to UID 65532, a new
// session, the request on stdin), against the reference Core serving a real release and a
// private real dockerd.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildRelease } from '../../fixtures/release/build.ts';
import { type TestCore } from '../helpers/core.ts';
import { issueToken, listNodes } from '../helpers/node.ts';
import { type PrivateDockerd } from '../helpers/private-dockerd.ts';
import {
  NODE_UID as UID,
  outcomes,
  type Prepared,
  prepareRequest,
  runPrepare,
  startPrepareFixture,
  type PrepareFixture,
} from '../helpers/prepare.ts';

let scratch: string;
let core: TestCore;
let dockerd: PrivateDockerd;
let dockerGid: number;
let release: Awaited<ReturnType<typeof buildRelease>>;

let fixture: PrepareFixture;
before(async () => {
  fixture = await startPrepareFixture('prepare');
  ({ scratch, core, dockerd, dockerGid, release } = fixture);
});
after(() => fixture.stop());

/** `_prepare` as UID 65532 with the docker group, a copy it can execute (see before()). */
const prepare = (request: object) => runPrepare(join(scratch, 'oac-node'), dockerGid, request);

const requestFor = (name: string, token: string) =>
  prepareRequest(core, scratch, name, token, { docker_host: dockerd.host });

test('HOST-08 _prepare as oac-node: state, image, network, provider file, registration; a rerun changes nothing', async () => {
  const token = await issueToken(core);
  const request = await requestFor('first', token);
  const first = await prepare(request);
  assert.equal(first.status, 0, first.stderr + JSON.stringify(first.events));
  assert.deepEqual(outcomes(first), {
    // The directories it lies in: the fixture's scratch tree has them already.
    'directory:.oac': 'unchanged',
    'directory:.oac/nodes': 'unchanged',
    state: 'created',
    files: 'created',
    runtime: 'created',
    network: 'created',
    'provider-file': 'created',
    enroll: 'created',
  });
  const state = request.state_dir;
  for (const path of [state, join(state, 'identity.json'), join(state, 'provider.json')]) {
    assert.equal(statSync(path).uid, UID, `${path} belongs to oac-node (HOST-04, HOST-08)`);
  }
  assert.equal(statSync(state).mode & 0o777, 0o700);
  const image = release.manifest.files.find((f) => f.kind === 'runtime-image');
  assert.ok(image?.kind === 'runtime-image');
  assert.match(
    dockerd.docker(['image', 'inspect', '--format', '{{.Id}}', image.image.reference]).stdout,
    new RegExp(image.image.id),
  );
  assert.deepEqual(
    readdirSync(join(state, 'files')),
    [],
    'DL-06: the archive is deleted after import',
  );
  const network = dockerd.docker([
    'network',
    'inspect',
    '--format',
    '{{.Name}} {{index .Labels "oac-node.installation"}}',
    `oac-node-${request.installation_id}`,
  ]);
  assert.equal(
    network.stdout.trim(),
    `oac-node-${request.installation_id} ${request.installation_id}`,
  );
  const identity = JSON.parse(readFileSync(join(state, 'identity.json'), 'utf8')) as {
    node_id: string;
    managed: boolean;
  };
  assert.equal(identity.managed, true);
  assert.equal((await listNodes(core)).filter((n) => n.node_id === identity.node_id).length, 1);
  assert.ok(
    !JSON.stringify(first.events).includes(token),
    'SEC-03: the token is not in the events',
  );

  const second = await prepare({ ...request, token: null });
  assert.equal(second.status, 0, second.stderr);
  assert.deepEqual(outcomes(second), {
    'directory:.oac': 'unchanged',
    'directory:.oac/nodes': 'unchanged',
    state: 'unchanged',
    files: 'unchanged',
    runtime: 'unchanged',
    network: 'unchanged',
    'provider-file': 'unchanged',
    enroll: 'unchanged',
  });
});

test('DL-05 a Runtime image already in Docker is not downloaded', async () => {
  await core.coreApi('DELETE', '/__fixture/requests');
  const request = await requestFor('preloaded', await issueToken(core));
  const result = await prepare(request);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(outcomes(result).runtime, 'unchanged');
  const log = (await core.coreApi('GET', '/__fixture/requests')).body as Array<{ path: string }>;
  assert.equal(log.filter((r) => r.path.endsWith('runtime.tar.gz')).length, 0);
});

test('PRE-09 OPS-02 HOST-07 Docker with no free address pool: one line naming the network and the fix, not an internal error; after the fix the rerun completes', async () => {
  // Fill every default pool of the private dockerd (it has a network namespace of its own, so
  // this touches nothing of the machine's): Docker then refuses the node's network.
  const request = await requestFor('no-pool', await issueToken(core));
  const network = `oac-node-${request.installation_id}`;
  dockerd.docker(['network', 'rm', network]); // the earlier tests' (one installation per Core)
  const fillers: string[] = [];
  try {
    for (let i = 0; i < 64; i += 1) {
      const name = `pool-filler-${i}`;
      if (dockerd.docker(['network', 'create', name]).status !== 0) break;
      fillers.push(name);
    }
    assert.ok(fillers.length > 0 && fillers.length < 64, `${fillers.length} networks used them up`);
    const failed = await prepare(request);
    assert.notEqual(failed.status, 0);
    const event = failed.events.find((e) => e.type === 'step-failed') as
      (Prepared['events'][number] & { hint?: string }) | undefined;
    assert.equal(event?.step, 'network', JSON.stringify(failed.events));
    assert.equal(event?.code, 'docker_network_refused');
    assert.match(
      event?.message ?? '',
      new RegExp(`^Docker did not create the network ${network}: .*pool`),
    );
    assert.match(event?.hint ?? '', /docker network rm NAME/);
    assert.doesNotMatch(failed.stderr, /internal error|DockerRefused|\n\s+at /);

    for (const name of fillers.splice(0)) dockerd.docker(['network', 'rm', name]);
    const rerun = await prepare(request);
    assert.equal(rerun.status, 0, rerun.stderr + JSON.stringify(rerun.events));
    assert.equal(outcomes(rerun).network, 'created');
  } finally {
    for (const name of fillers) dockerd.docker(['network', 'rm', name]);
  }
});
