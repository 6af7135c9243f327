// `oac-node register` (NODE-01, ENR-02, ENR-03), run as the real executable against the
// reference Core on loopback.
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startCore, type TestCore } from '../helpers/core.ts';
import { dockerAdapter, listNodes, nodeFiles, registerArgs, runExe } from '../helpers/node.ts';

let core: TestCore;
let scratch: string;
const adapter = dockerAdapter('unix:///var/run/docker.sock', 'oac-runtime:test');

before(async () => {
  core = await startCore();
  scratch = mkdtempSync(join(tmpdir(), 'oac-register-'));
});
after(async () => {
  await core.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function dir(name: string): string {
  const path = join(scratch, name);
  mkdirSync(path, { recursive: true });
  return path;
}

test('NODE-01 register writes a private identity and Core lists the node', async () => {
  const files = await nodeFiles(core, dir('basic'), adapter);
  const r = runExe(registerArgs(core, files));
  assert.equal(r.status, 0, r.stderr);
  const identity = JSON.parse(
    readFileSync(join(files.stateDir, 'identity.json'), 'utf8'),
  ) as Record<string, unknown>;
  assert.match(
    r.stdout,
    new RegExp(`^Registered: node ${String(identity.node_id)} \\(worker-1\\)`),
  );
  assert.equal(statSync(files.stateDir).mode & 0o777, 0o700);
  assert.equal(statSync(join(files.stateDir, 'identity.json')).mode & 0o777, 0o600);
  assert.match(
    String(identity.node_id),
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  );
  assert.match(String(identity.credential), /^\S{32,256}$/);
  const listed = (await listNodes(core)).filter((n) => n.node_id === identity.node_id);
  assert.equal(listed.length, 1);
  assert.equal(listed[0]?.name, 'worker-1');
});

test('NODE-01 a second register of a registered state dir changes nothing', async () => {
  const files = await nodeFiles(core, dir('twice'), adapter);
  assert.equal(runExe(registerArgs(core, files)).status, 0);
  const before = readFileSync(join(files.stateDir, 'identity.json'));
  const count = (await listNodes(core)).length;
  const r = runExe(registerArgs(core, files));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Already registered: node /);
  assert.deepEqual(readFileSync(join(files.stateDir, 'identity.json')), before);
  assert.equal((await listNodes(core)).length, count);
});

test('NODE-01 a token file readable by group or others is refused and the host is unchanged', async () => {
  const files = await nodeFiles(core, dir('exposed'), adapter);
  chmodSync(files.tokenFile, 0o640);
  const r = runExe(registerArgs(core, files));
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    /^oac-node: The enrollment token file \S+ is readable by group or others$/m,
  );
  assert.equal(existsSync(files.stateDir), false, 'no state dir was created');
  assert.ok(!r.stderr.includes(files.token), 'the token is not printed');
});

test('SEC-04 every violation of the provider file is listed with its field path, then one exit', async () => {
  const files = await nodeFiles(core, dir('badfile'), adapter);
  const good = JSON.parse(readFileSync(files.config, 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  const bad = {
    ...good,
    generation: 0,
    adapter: {
      ...good.adapter,
      host: 'tcp://10.0.0.1:2375',
      seccomp_file: 'relative.json',
      surprise: 1,
    },
  };
  writeFileSync(files.config, JSON.stringify(bad));
  const r = runExe(registerArgs(core, files));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /has 4 problems:/);
  for (const path of ['generation', 'adapter.host', 'adapter.seccomp_file', 'adapter']) {
    assert.match(r.stderr, new RegExp(`^  ${path.replace('.', '\\.')}: `, 'm'), path);
  }
  assert.match(r.stderr, /unix socket/);
  assert.equal(existsSync(files.stateDir), false);
});

test('SEC-04 microsandbox runtime_home longer than 48 bytes is refused', async () => {
  const files = await nodeFiles(core, dir('mshome'), adapter);
  const good = JSON.parse(readFileSync(files.config, 'utf8')) as Record<string, unknown>;
  const hex = 'a'.repeat(64);
  const ms = {
    ...good,
    provider: 'microsandbox',
    adapter: {
      ...{
        helper_path: '/opt/m/helper',
        runtime_path: '/opt/m/runtime',
        firmware_path: '/opt/m/fw',
      },
      ...{
        runtime_sha256: hex,
        firmware_sha256: hex,
        image: 'oac-runtime:x',
        cpus: 1,
        memory_mib: 256,
      },
      ...{ root_disk_mib: 1024, environment_disk_mib: 1024, network: 'public' },
      runtime_home: `/var/lib/${'x'.repeat(45)}`,
    },
  };
  writeFileSync(files.config, JSON.stringify(ms));
  const r = runExe(registerArgs(core, files));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /adapter\.runtime_home: must be at most 48 bytes long/);
});

test('ENR-02 a lost enrollment answer is retried with the same identity and ends with one node', async () => {
  const files = await nodeFiles(core, dir('lost-once'), adapter);
  const fault = {
    target: '/api/v1/sandbox-node/enroll',
    fault: { kind: 'lose_response' },
    count: 1,
  };
  assert.ok((await core.coreApi('PUT', '/__fixture/faults', fault)).status < 300);
  const r = runExe(registerArgs(core, files));
  assert.equal(r.status, 0, r.stderr);
  const { node_id } = JSON.parse(readFileSync(join(files.stateDir, 'identity.json'), 'utf8')) as {
    node_id: string;
  };
  assert.equal((await listNodes(core)).filter((n) => n.node_id === node_id).length, 1);
});

test('ENR-02 every answer lost: the identity is on disk first, and the next run recovers it (one node)', async () => {
  const files = await nodeFiles(core, dir('lost'), adapter);
  const fault = {
    target: '/api/v1/sandbox-node/enroll',
    fault: { kind: 'lose_response' },
    count: 4,
  };
  assert.ok((await core.coreApi('PUT', '/__fixture/faults', fault)).status < 300);
  const first = runExe(registerArgs(core, files));
  assert.equal(first.status, 1, 'every answer lost fails the first run');
  assert.match(first.stderr, /^oac-node: Cannot reach Core at /m);
  const pending = JSON.parse(readFileSync(join(files.stateDir, 'identity.json'), 'utf8')) as {
    node_id: string;
    enrolled?: unknown;
  };
  assert.equal(pending.enrolled, undefined, 'the identity was written before Core answered');
  await core.coreApi('DELETE', '/__fixture/faults');
  const second = runExe(registerArgs(core, files));
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /recovered a lost answer/);
  const done = JSON.parse(readFileSync(join(files.stateDir, 'identity.json'), 'utf8')) as {
    node_id: string;
  };
  assert.equal(done.node_id, pending.node_id);
  assert.equal((await listNodes(core)).filter((n) => n.node_id === pending.node_id).length, 1);
});

test('ENR-01 a token already used by another node fails with the guide line', async () => {
  const files = await nodeFiles(core, dir('used'), adapter);
  const other = await nodeFiles(core, dir('used-other'), adapter);
  writeFileSync(other.tokenFile, readFileSync(files.tokenFile), { mode: 0o600 });
  assert.equal(runExe(registerArgs(core, files)).status, 0);
  const r = runExe(registerArgs(core, other, 'worker-2'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^oac-node: The enrollment command expired or was already used$/m);
});

test("NODE-01 a state dir holding another installation's node is refused, and says why", async () => {
  const files = await nodeFiles(core, dir('foreign'), adapter);
  assert.equal(runExe(registerArgs(core, files)).status, 0);
  const second = await startCore();
  try {
    const theirs = await nodeFiles(second, dir('foreign-2'), adapter);
    const before = readFileSync(join(files.stateDir, 'identity.json'));
    const args = registerArgs(second, theirs);
    args[args.indexOf('--state-dir') + 1] = files.stateDir; // our registered state dir
    const r = runExe(args);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /holds a node of installation \S+ at http:\/\/127\.0\.0\.1:\d+, not of installation/,
    );
    assert.deepEqual(readFileSync(join(files.stateDir, 'identity.json')), before);
    assert.equal((await listNodes(second)).length, 0);
  } finally {
    await second.stop();
  }
});

test('SEC-03 the token and the credential never reach argv, stdout or stderr', async () => {
  const files = await nodeFiles(core, dir('secrets'), adapter);
  const args = registerArgs(core, files);
  const r = runExe(args);
  assert.equal(r.status, 0);
  const credential = (
    JSON.parse(readFileSync(join(files.stateDir, 'identity.json'), 'utf8')) as {
      credential: string;
    }
  ).credential;
  for (const secret of [files.token, credential]) {
    assert.ok(!args.join(' ').includes(secret));
    assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret));
  }
});
