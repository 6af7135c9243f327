// NODE-06 (issue #40): a node knows the host it was registered on. The host ID is systemd's own
// application-specific machine ID (an operator can compute it with systemd-id128); `register`
// records it; `run` on another machine ID (a copied disk or image, here a private mount namespace
// with another /etc/machine-id bound over this machine's, which stays untouched) stops for good
// with exit 78 and one line, before Core hears of it; and a second `register` there refuses too.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HOST_ID_APP, hostIdOf, onAnotherHost } from '../../src/node/host-id.ts';
import { startCore, type TestCore } from '../helpers/core.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { dockerAdapter, registerArgs, registerNode, type RegisteredNode } from '../helpers/node.ts';

let core: TestCore;
let scratch: string;
const adapter = dockerAdapter('unix:///var/run/docker.sock', 'oac-runtime:test');

before(async () => {
  core = await startCore();
  scratch = mkdtempSync(join(tmpdir(), 'oac-host-id-'));
});
after(async () => {
  await core.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const identityOf = (node: RegisteredNode) =>
  JSON.parse(readFileSync(join(node.stateDir, 'identity.json'), 'utf8')) as { host_id?: unknown };

/** argv run in a private mount namespace whose /etc/machine-id holds `machineId`: an overlay
 *  on /etc there (this machine's /etc is its lower layer, never written), so that the file is
 *  no mount point of its own, as on a copied disk; `transient`: the file bound over, as
 *  systemd does with a machine ID it makes at every boot. */
function onCopy(machineId: string, argv: string[], transient = false) {
  const dir = mkdtempSync(join(scratch, 'etc-'));
  const file = join(dir, 'machine-id');
  writeFileSync(file, `${machineId}\n`);
  const overlay =
    'mkdir "$1/upper" "$1/work" && mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc && cp "$1/machine-id" /etc/machine-id';
  const bind = 'mount --bind "$1/machine-id" /etc/machine-id';
  const script = `${transient ? bind : overlay} && shift && exec "$@"`;
  return spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', dir, ...argv], {
    encoding: 'utf8',
    env: {},
    timeout: 60_000,
  });
}

async function requestsNaming(nodeId: string): Promise<number> {
  const r = await core.coreApi('GET', '/__fixture/requests');
  const entries = r.body as { path: string }[];
  return entries.filter((e) => e.path.includes(nodeId)).length;
}

test('NODE-06 the host ID is what systemd-id128 gives for oac-node, and only a known one is compared', () => {
  const machineId = readFileSync('/etc/machine-id', 'utf8');
  const systemd = spawnSync('systemd-id128', ['machine-id', `--app-specific=${HOST_ID_APP}`], {
    encoding: 'utf8',
  });
  assert.equal(systemd.status, 0, systemd.stderr);
  assert.equal(hostIdOf(machineId), systemd.stdout.trim());
  assert.notEqual(hostIdOf(machineId), machineId.trim(), 'the machine ID itself is not kept');
  for (const none of ['', '\n', 'uninitialized\n', `${'0'.repeat(32)}\n`, 'xyz'])
    assert.equal(hostIdOf(none), undefined, JSON.stringify(none));
  assert.equal(onAnotherHost('a'.repeat(32), 'b'.repeat(32)), true);
  assert.equal(onAnotherHost('a'.repeat(32), 'a'.repeat(32)), false);
  assert.equal(onAnotherHost(undefined, 'b'.repeat(32)), false, 'registered before it was kept');
  assert.equal(onAnotherHost('a'.repeat(32), null), false, 'no machine ID here: not judged');
});

test('NODE-06 register records the host; run on a copy stops for good (78) in one line, and Core never hears of it', async () => {
  const node = await registerNode(core, join(scratch, 'copied'), adapter, 'original');
  assert.equal(identityOf(node).host_id, hostIdOf(readFileSync('/etc/machine-id', 'utf8')));
  const asked = await requestsNaming(node.nodeId);
  const copy = randomBytes(16).toString('hex');
  const run = onCopy(copy, [
    requireExecutable(),
    ...['run', '--config', node.config, '--state-dir', node.stateDir],
  ]);
  assert.equal(run.status, 78, run.stderr);
  const lines = run.stderr.trim().split('\n');
  assert.match(lines[0] ?? '', new RegExp(`Node ${node.nodeId} was registered on another host`));
  assert.match(
    run.stderr,
    /(sudo )?oac-node uninstall --installation-id \S+ --force, then paste a new line from Web/,
  );
  assert.doesNotMatch(`${run.stdout}${run.stderr}`, new RegExp(node.credential));
  assert.equal(await requestsNaming(node.nodeId), asked, 'no request of the copy reached Core');
  assert.equal(identityOf(node).host_id, hostIdOf(readFileSync('/etc/machine-id', 'utf8')));
});

test('NODE-06 register again on a copy refuses (78) and leaves the identity as it was', async () => {
  const node = await registerNode(core, join(scratch, 'again'), adapter, 'original');
  const before = readFileSync(join(node.stateDir, 'identity.json'), 'utf8');
  mkdirSync(join(scratch, 'again'), { recursive: true });
  const again = onCopy(randomBytes(16).toString('hex'), [
    requireExecutable(),
    ...registerArgs(core, node, 'copy'),
  ]);
  assert.equal(again.status, 78, again.stderr);
  assert.match(again.stderr, /was registered on another host/);
  assert.equal(readFileSync(join(node.stateDir, 'identity.json'), 'utf8'), before);
});

test("NODE-06 a pending registration on a copy refuses too (78): its credential is the original's", async () => {
  const node = await registerNode(core, join(scratch, 'pending'), adapter, 'original');
  const path = join(node.stateDir, 'identity.json');
  const {
    enrolled: _e,
    approved: _a,
    ...pending
  } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  writeFileSync(path, JSON.stringify(pending), { mode: 0o600 });
  const asked = await requestsNaming(node.nodeId);
  const again = onCopy(randomBytes(16).toString('hex'), [
    requireExecutable(),
    ...registerArgs(core, node, 'copy'),
  ]);
  assert.equal(again.status, 78, again.stderr);
  assert.match(again.stderr, /was registered on another host/);
  assert.equal(await requestsNaming(node.nodeId), asked, 'Core was not asked with its credential');
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), pending);
});

test("NODE-06 a machine ID bound over /etc/machine-id (systemd's, new at every boot) is not judged: the node runs", async () => {
  const node = await registerNode(core, join(scratch, 'transient'), adapter, 'transient');
  const run = onCopy(
    randomBytes(16).toString('hex'),
    [
      'timeout',
      '-s',
      'TERM',
      '5',
      requireExecutable(),
      ...['run', '--config', node.config, '--state-dir', node.stateDir],
    ],
    true,
  );
  assert.notEqual(run.status, 78, run.stderr);
  assert.doesNotMatch(run.stderr, /registered on another host/);
  assert.ok((await requestsNaming(node.nodeId)) > 0, 'it went on to Core');
});
