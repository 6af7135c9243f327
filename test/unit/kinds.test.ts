// Issue #38 item 4: what one resource kind is lives in its own module (src/resources/kind.ts),
// and the registry (src/node/kind-registry.ts, src/installation/kinds.ts) is the one list of them. Each
// kind's description is checked here against an install's real desired value; the drivers'
// diffs have their own tables (test/unit/diff.test.ts, diff-node-half.test.ts).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { KEYS } from '../../src/installation/desired.ts';
import { desired } from '../helpers/desired.ts';
import {
  isRecorded,
  kindOf,
  nameOf,
  recordedProps,
  removalOf,
} from '../../src/installation/kinds.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import type { Kind, Resource, StagedReleaseResource } from '../../src/resources/resources.ts';
import { KINDS } from '../../src/node/kind-registry.ts';
import { recordedResources } from '../../src/installation/recorded.ts';
import type { JournalData } from '../../records/journal.ts';
import { checkActual } from '../../src/resources/kind.ts';
import { planSteps } from '../../src/core/plan.ts';

const names = layout(parseInstallationId('inst-1'));
const wanted = (proxyEnv: Record<string, string> = {}) =>
  desired({
    layout: names,
    provider: 'docker',
    group: 'docker',
    coreUrl: 'https://core.example',
    corePin: null,
    proxyEnv,
    envKey: 'e0'.repeat(32),
    program: { source: '/tmp/oac-node', sha256: 'a'.repeat(64), version: '0.2.0' },
  });
const byKey = (resources: Resource[], key: string) => {
  const found = resources.find((r) => r.key === key);
  assert.ok(found !== undefined, key);
  return found;
};

test('issue #38 the registry lists every kind once, each module under its own name', () => {
  const all: Kind[] = [
    ...['account', 'membership', 'directory', 'file', 'unit', 'service', 'network'],
    ...['docker-image', 'node-file', 'store-image', 'provider-file', 'registration'],
  ] as Kind[];
  assert.deepEqual(Object.keys(KINDS).sort(), [...all].sort());
  for (const [name, module] of Object.entries(KINDS)) assert.equal(module.kind, name);
  const step = { kind: 'node', key: KEYS.node, title: 'x', phase: 'prepare' } as const;
  assert.equal(kindOf(step).kind, 'node', 'the node step, registered by the installation');
  assert.equal(isRecorded(step), false);
  const staged: StagedReleaseResource = {
    ...{ kind: 'staged-release', key: 'stage', title: 'x', phase: 'prepare' },
    ...{ release: '0.2.0-abc', generation: 3, unit: names.unitName },
  };
  assert.equal(kindOf(staged).kind, 'staged-release', "a staging's step, the installation's too");
  assert.equal(isRecorded(staged), false, 'what it copies lives in the node state');
  assert.equal(nameOf(staged), 'release 0.2.0-abc for generation 3');
});

test('issue #38 DECL-02 what the journal keeps of each recorded kind brings the recorded desired value back', () => {
  for (const r of wanted({ https_proxy: 'http://proxy.example:3128' }).filter(isRecorded)) {
    const kind = kindOf(r);
    const back = kind.fromRecord({ ...r }, recordedProps(r));
    // What the record keeps is what status compares: the same again from the value it gives.
    assert.deepEqual(recordedProps(back), recordedProps(r), r.key);
    assert.equal(nameOf(back), nameOf(r), r.key);
  }
  const program = byKey(wanted(), KEYS.program);
  assert.deepEqual(recordedProps(program), {
    mode: 0o755,
    sha256: 'a'.repeat(64),
    version: '0.2.0',
  });
  assert.equal(kindOf(program).version(program), '0.2.0');
  assert.deepEqual(recordedProps(byKey(wanted(), KEYS.account)), {}, 'an account keeps no props');
});

test('issue #38 each kind names its removal; the account and what it owns are said as such', () => {
  const all = wanted();
  assert.equal(removalOf(byKey(all, KEYS.account)), 'delete user oac-node');
  assert.equal(kindOf(byKey(all, KEYS.account)).label(byKey(all, KEYS.account)), 'user oac-node');
  assert.equal(removalOf(byKey(all, KEYS.service)), `stop and disable ${names.unitName}`);
  assert.equal(removalOf(byKey(all, KEYS.network)), `remove network ${names.network}`);
  assert.match(kindOf(byKey(all, KEYS.account)).keptFor('the kept store'), /^it owns .*rerun/);
  assert.equal(kindOf(byKey(all, KEYS.home)).keptFor('the kept store'), 'it holds the kept store');
});

test('issue #38 DECL-05 saved plans compare what does not change between runs; only the env file is secret', () => {
  const all = wanted({ https_proxy: 'http://alice:pw@proxy.example:3128' });
  const env = byKey(all, KEYS.envFile);
  const program = byKey(all, KEYS.program);
  const service = byKey(all, KEYS.service);
  assert.deepEqual(
    all.filter((r) => kindOf(r).secret(r)).map((r) => r.key),
    [KEYS.envFile],
  );
  for (const field of ['content', 'sha256', 'copyFrom'])
    assert.ok(!(field in kindOf(env).comparable(env)), `env ${field}`);
  assert.ok(!('copyFrom' in kindOf(program).comparable(program)));
  assert.ok('sha256' in kindOf(program).comparable(program), 'the program is compared by digest');
  assert.ok(!('inputs' in kindOf(service).comparable(service)));
  assert.deepEqual(
    kindOf(service).reads(service).sort(),
    [...(service.kind === 'service' ? service.reads : [])].sort(),
  );
  assert.equal(
    kindOf(byKey(wanted(), KEYS.envFile)).wantedAbsent(byKey(wanted(), KEYS.envFile)),
    true,
    'no proxy: no env file',
  );
});

test('issue #38 nothing outside the kind modules asks which kind a resource is, but the narrowings listed here', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const kinds = Object.keys(KINDS)
    .concat('node', 'staged-release', 'previous-program', 'upgrade-rollback', 'installation-record')
    .join('|');
  const test = new RegExp(`\\.kind\\s*[!=]==\\s*'(${kinds})'|switch \\((r|resource)\\.kind\\)`);
  const files = ['src', 'installer', 'uninstaller', 'records'].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(dir, name)),
  );
  // The kind modules themselves, and probes whose own result has a `kind` (not a resource's).
  const modules = /^src\/(resources\/drivers|node\/drivers)\/|^records\/env-file\.ts$/;
  const found = files
    .filter((file) => !modules.test(file))
    .flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => test.test(line))
        .map(() => file),
    );
  // Narrowings to reach one resource's own fields, each of a resource named by its key or its
  // half: the desired value fills in the program, the PATH command, the manual page, the env
  // file, the unit and the service; root plans the node account's directories before its program exists. (The
  // upgrade's keep of the program is a kind of its own since issue #38.)
  const allowed = [
    ...Array(6).fill('src/installation/desired.ts'),
    'src/installation/node-half-first.ts',
  ];
  assert.deepEqual(found.sort(), allowed.sort());
});

test("issue #38 DECL-01 each kind has zod schemas: every resource of an install's desired value is its kind's desired shape, and what the journal keeps of it its recorded shape", () => {
  const values = [
    wanted(),
    wanted({ https_proxy: 'http://proxy.example:3128' }),
    desired({
      layout: names,
      provider: 'microsandbox',
      group: 'kvm',
      coreUrl: 'https://core.example',
      corePin: null,
      proxyEnv: {},
      envKey: 'e0'.repeat(32),
      program: { source: '/tmp/oac-node', sha256: 'a'.repeat(64), version: '0.2.0' },
    }),
  ];
  for (const r of values.flat()) {
    const { desired: shape, recorded } = kindOf(r).schemas;
    const parsed = shape.safeParse(r);
    assert.ok(parsed.success, `${r.key}: ${JSON.stringify(parsed.error?.issues)}`);
    assert.ok(recorded.safeParse(recordedProps(r)).success, `${r.key}: its recorded props`);
  }
  const unit = byKey(wanted(), KEYS.unit);
  // A field the shape does not name, or one of another type, is not that kind's value.
  assert.equal(kindOf(unit).schemas.desired.safeParse({ ...unit, extra: 1 }).success, false);
  assert.equal(kindOf(unit).schemas.recorded.safeParse({ sha256: 7 }).success, false);
});

test('issue #38 DECL-02 a damaged property of a record is not taken, and the others still are', () => {
  const record = (props: Record<string, unknown>) =>
    ({
      resources: { program: { kind: 'file', name: names.program, ownership: 'owned', props } },
    }) as unknown as JournalData;
  const good = { mode: 0o755, sha256: 'a'.repeat(64), version: '0.2.0' };
  const [whole] = recordedResources(names, record(good));
  assert.ok(whole?.kind === 'file');
  assert.equal(whole.sha256, good.sha256);
  // The version damaged (a number): the digest still compares the program.
  const [partly] = recordedResources(names, record({ ...good, version: 7 }));
  assert.ok(partly?.kind === 'file');
  assert.equal(partly.sha256, good.sha256);
  assert.equal(partly.version, undefined);
});

test('issue #38 DECL-06 each kind has the shape of what its probe finds, and a plan stops on a probe that answers outside it (a driver bug), naming the resource', async () => {
  const all = [...wanted(), stagedStep()];
  const kinds = new Map(all.map((r) => [r.kind, r]));
  for (const r of kinds.values()) {
    const { actual } = kindOf(r).schemas;
    assert.equal(actual.safeParse('not a probe').success, false, r.kind);
    assert.throws(() => checkActual(kindOf(r).schemas, r.key, 42), /the probe of \S+ answered/);
  }
  // What the drivers answer on a new host, as their diff tables use them.
  const file = byKey(wanted(), KEYS.unit);
  assert.ok(kindOf(file).schemas.actual.safeParse({ exists: false }).success);
  assert.equal(kindOf(file).schemas.actual.safeParse({ exists: 'no' }).success, false);
  const account = byKey(wanted(), `account:oac-node`);
  assert.ok(kindOf(account).schemas.actual.safeParse({ byName: undefined }).success);
  // A plan whose judge checks, as root's (root-plan.ts, remove.ts) and the node half's
  // (src/node/reconcile.ts) do, stops on an answer of another shape.
  const wrong = { ...kindOf(account).driver, probe: async () => ({ byName: 'oac-node' }) };
  await assert.rejects(
    planSteps([account], undefined, {
      driverOf: () => wrong as never,
      judge: async (step) => (
        checkActual(kindOf(step.resource).schemas, step.resource.key, step.actual),
        step
      ),
    }),
    /the probe of account:oac-node answered outside its kind's shape/,
  );
});

function stagedStep(): StagedReleaseResource {
  return {
    ...{ kind: 'staged-release', key: 'stage', title: 'x', phase: 'prepare' },
    ...{ release: '0.2.0-abc', generation: 3, unit: names.unitName },
  };
}
