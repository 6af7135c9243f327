// DECL-01: the desired state is a pure function of its inputs (src/installation/desired.ts). Golden
// outputs: the resources, in order, for each provider; the properties an install knows; the
// service's digest of what it reads (DECL-03).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { desired } from '../helpers/desired.ts';
import {
  installationDesired,
  nodePart,
  resourceShape,
  rootView,
  type DesiredInputs,
} from '../../src/installation/desired.ts';
import { nodeHalfDesired } from '../../src/node/node-desired.ts';
import { MANIFEST, nodeRequest } from './node-half-fixture.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';

const names = layout(parseInstallationId('inst-1'));
const inputs: DesiredInputs = {
  layout: names,
  provider: 'docker',
  group: 'docker',
  coreUrl: 'https://core.example',
  corePin: null,
  proxyEnv: {},
  envKey: '0'.repeat(64),
  program: { source: '/tmp/oac-node', sha256: 'a'.repeat(64) },
};

const summary = (list: ReturnType<typeof desired>) =>
  list.map((r) => `${r.kind} ${r.key} ${'path' in r ? r.path : 'name' in r ? r.name : ''}`.trim());

test('DECL-01 golden: a Docker node wants these resources, in this order', () => {
  assert.deepEqual(summary(desired(inputs)), [
    'account account:oac-node oac-node',
    'membership group-membership:docker',
    'directory directory:home /var/lib/oac-node',
    'directory directory:program-root /usr/local/lib/oac-node',
    'directory directory:program /usr/local/lib/oac-node/inst-1',
    'previous-program program-previous /usr/local/lib/oac-node/inst-1/oac-node.previous',
    'file program /usr/local/lib/oac-node/inst-1/oac-node',
    'file path-command /usr/local/sbin/oac-node',
    'directory directory:man /usr/local/share/man/man1',
    'file man-page /usr/local/share/man/man1/oac-node.1',
    'directory directory:.oac /var/lib/oac-node/.oac',
    'directory directory:.oac/nodes /var/lib/oac-node/.oac/nodes',
    'directory state /var/lib/oac-node/.oac/nodes/inst-1',
    'network network oac-node-inst-1',
    'node node',
    'file proxy-settings /etc/oac-node/inst-1.env',
    'unit unit /etc/systemd/system/oac-node-inst-1.service',
    'service service',
    'upgrade-rollback upgrade-rollback /usr/local/lib/oac-node/inst-1/oac-node.previous',
  ]);
});

test('DECL-01 golden: a microsandbox node wants the kvm group and the store instead of a network', () => {
  const list = summary(desired({ ...inputs, provider: 'microsandbox', group: 'kvm' }));
  assert.ok(list.includes('membership group-membership:kvm'));
  assert.ok(list.includes('directory store /var/lib/oac-node/.oac/m'));
  assert.ok(!list.some((l) => l.startsWith('network')));
  assert.ok(!list.some((l) => l.includes('docker')));
});

test('DECL-01 the shape without a provider (uninstall without a record) holds both providers', () => {
  const keys = resourceShape(names, { provider: undefined, groups: undefined }).map((r) => r.key);
  for (const key of ['network', 'store', 'group-membership:docker', 'group-membership:kvm'])
    assert.ok(keys.includes(key), key);
});

test('HOST-06 no proxy: the env file is wanted absent; a proxy: its content and digest', () => {
  const none = desired(inputs).find((r) => r.key === 'proxy-settings');
  assert.equal(none?.kind === 'file' && none.sha256, null);
  const some = desired({ ...inputs, proxyEnv: { https_proxy: 'http://p.test:3128' } }).find(
    (r) => r.key === 'proxy-settings',
  );
  assert.ok(some?.kind === 'file');
  assert.equal(
    some.content,
    `# oac-node digest key: ${'0'.repeat(64)}\nhttps_proxy="http://p.test:3128"\n`,
  );
  assert.match(some.sha256 ?? '', /^hmac-sha256:[0-9a-f]{64}$/);
  assert.equal(some.mode, 0o600);
  assert.equal(some.secret, true);
});

test('HOST-06 SEC-03 the env file is recorded by a keyed digest: no plain SHA-256 of it, another key another digest (issue #27.5)', () => {
  const envOf = (envKey: string) =>
    desired({
      ...inputs,
      envKey,
      proxyEnv: { https_proxy: 'http://alice:Winter2024@p.test:3128' },
    }).find((r) => r.key === 'proxy-settings');
  const a = envOf('1'.repeat(64));
  const b = envOf('2'.repeat(64));
  assert.ok(a?.kind === 'file' && b?.kind === 'file');
  const plain = (text: string) => createHash('sha256').update(text).digest('hex');
  // What an attacker with a pasted status or journal could compute from a guessed password:
  const guesses = ['https_proxy="http://alice:Winter2024@p.test:3128"\n', a.content ?? ''].map(
    plain,
  );
  for (const digest of [a.sha256, b.sha256]) {
    assert.match(digest ?? '', /^hmac-sha256:/);
    for (const guess of guesses) assert.ok(!(digest ?? '').includes(guess), 'no plain digest');
  }
  assert.notEqual(a.sha256, b.sha256);
});

test("HOST-03 the unit runs this installation's program as oac-node, restarts every 5 s, stops for good on 78", () => {
  const unit = desired(inputs).find((r) => r.kind === 'unit');
  assert.ok(unit?.kind === 'unit');
  const lines = unit.content?.split('\n') ?? [];
  for (const line of [
    'User=oac-node',
    'EnvironmentFile=-/etc/oac-node/inst-1.env',
    'ExecStart=/usr/local/lib/oac-node/inst-1/oac-node run --config /var/lib/oac-node/.oac/nodes/inst-1/provider.json --state-dir /var/lib/oac-node/.oac/nodes/inst-1',
    'Restart=on-failure',
    'RestartSec=5',
    'RestartPreventExitStatus=78',
  ])
    assert.ok(lines.includes(line), line);
});

test('DECL-03 the service digest changes with its unit, env file, program and group, and only with them', () => {
  const digest = (i: DesiredInputs) => {
    const s = desired(i).find((r) => r.kind === 'service');
    return s?.kind === 'service' ? s.inputs : undefined;
  };
  const base = digest(inputs);
  assert.match(base ?? '', /^[0-9a-f]{64}$/);
  assert.equal(digest({ ...inputs, name: 'other' } as DesiredInputs), base, 'the name is not read');
  for (const changed of [
    { ...inputs, proxyEnv: { http_proxy: 'http://p.test:1' } },
    { ...inputs, program: { source: '/x', sha256: 'b'.repeat(64) } },
    { ...inputs, coreUrl: 'https://other.example' },
    { ...inputs, group: 'docker2' },
    // TRUST-01: the service reads the pin from the identity at start; a new pin restarts it.
    { ...inputs, corePin: `sha256:${'c'.repeat(64)}` },
  ])
    assert.notEqual(digest(changed), base, JSON.stringify(changed));
});

test('TRUST-01 DECL-03 without a pin the service digest is the one nodes from before pins recorded', () => {
  const s = desired(inputs).find((r) => r.kind === 'service');
  // The pre-pin formula: an upgrade alone must not restart every unpinned node.
  const unit = desired(inputs).find((r) => r.kind === 'unit');
  const u = unit?.kind === 'unit' ? unit.sha256 : '';
  const old = createHash('sha256')
    .update(
      JSON.stringify({
        service: s?.kind === 'service' ? s.unit : '',
        unit: u,
        env: null,
        program: 'a'.repeat(64),
        groups: ['docker'],
      }),
    )
    .digest('hex');
  assert.equal(s?.kind === 'service' ? s.inputs : undefined, old);
});

test("DECL-01 HOST-08: one value for the whole installation: every key once, each item applied by one account, root recording the node account's directories, network and store; root's view and the node half's own list are parts of it", () => {
  for (const provider of ['docker', 'microsandbox'] as const) {
    const request = nodeRequest(provider);
    const given = { ...inputs, provider, group: provider === 'docker' ? 'docker' : 'kvm' };
    const items = installationDesired(given, { request, manifest: MANIFEST });
    const keys = items.map((i) => i.resource.key);
    assert.deepEqual(keys, [...new Set(keys)], `${provider}: a key declared twice`);
    const byAccount = (account: string) =>
      items.filter((i) => i.account === account).map((i) => i.resource.kind);
    assert.ok(byAccount('root').every((k) => !['docker-image', 'registration'].includes(k)));
    assert.ok(
      byAccount('oac-node').every((k) => !['account', 'membership', 'unit', 'service'].includes(k)),
    );
    const recorded = items.flatMap((i) =>
      i.account === 'oac-node' && i.recorded ? [i.resource.key] : [],
    );
    const own = provider === 'docker' ? 'network' : 'store';
    assert.deepEqual(recorded, ['directory:.oac', 'directory:.oac/nodes', 'state', own]);
    // The node half (as oac-node) reconciles exactly the value's part, computed by itself from
    // the same request and release.
    assert.deepEqual(nodePart(items), nodeHalfDesired(request, MANIFEST));
    // Root's view: the same list as without the release, filled in (status and uninstall start
    // from that shape), but for the steps that keep the program an upgrade replaces and settle
    // the upgrade (UPG-02): status and uninstall find the kept one as the file the journal
    // records, and an upgrade is settled only by the install that makes it.
    const upgradeOnly = (key: string) => key !== 'program-previous' && key !== 'upgrade-rollback';
    const view = rootView(items)
      .map((r) => r.key)
      .filter(upgradeOnly);
    assert.equal(rootView(items).at(-1)?.key, 'upgrade-rollback', 'the upgrade is settled last');
    assert.deepEqual(
      rootView(items)
        .map((r) => r.key)
        .slice(view.indexOf('program'), view.indexOf('program') + 2),
      ['program-previous', 'program'],
      'the program is kept before it is replaced',
    );
    assert.deepEqual(
      view,
      desired(given)
        .map((r) => r.key)
        .filter(upgradeOnly),
    );
    assert.deepEqual(
      view,
      resourceShape(names, { provider, groups: [given.group] }).map((r) => r.key),
    );
    assert.equal(view.indexOf('node'), view.indexOf(own) + 1, 'the node step follows its part');
  }
});
