// Golden test of the desired value (DECL-01): the installation's one value,
// `installationDesired(...)` (src/installation/desired.ts: root's resources and the node
// account's part, each item naming the account that applies it) for fixed inputs, compared with
// the checked-in file test/unit/golden/installation-desired.json: every item, in order, with
// every property, keys in order (the comparison is of the JSON text).
// A change to what an installation wants must show up as a reviewed change to these files.
//
// To rewrite the golden files after an intended change (as systemd's and sysusers' golden tests
// do), run with UPDATE_GOLDEN=1 and review the diff before committing:
//   UPDATE_GOLDEN=1 node --import tsx --test test/unit/desired-golden.test.ts
//   git diff test/unit/golden/
//
// To keep the files readable, two properties are written in another form: a `content` text
// (the unit, the env file, the provider file) as its lines, and a `mode` as an octal string
// ("0700"). An undefined property is written as "(undefined)", so a key that appears or goes
// away is a change too.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { installationDesired, type DesiredInputs } from '../../src/installation/desired.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { MANIFEST, PIN, nodeRequest } from './node-half-fixture.ts';

const GOLDEN = new URL('golden/', import.meta.url);
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const docker: DesiredInputs = {
  layout: layout(parseInstallationId('inst-1')),
  provider: 'docker',
  group: 'docker',
  coreUrl: 'https://core.example',
  corePin: null,
  proxyEnv: { https_proxy: 'http://proxy.example:3128', no_proxy: 'localhost,.internal' },
  envKey: '0'.repeat(64),
  program: { source: '/tmp/oac-node', sha256: 'a'.repeat(64) },
};
const microsandboxWithCheckpointRoot: DesiredInputs = {
  ...docker,
  provider: 'microsandbox',
  group: 'kvm',
  corePin: PIN,
  checkpointRoot: '/srv/oac-checkpoints',
  proxyEnv: {},
};

/** The golden form of a value: see the top of this file. */
function goldenForm(value: unknown, key?: string): unknown {
  if (value === undefined) return '(undefined)';
  if (key === 'content' && typeof value === 'string') return value.split('\n');
  if (key === 'mode' && typeof value === 'number') return `0${value.toString(8)}`;
  if (Array.isArray(value)) return value.map((v) => goldenForm(v));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, goldenForm(v, k)]));
  return value;
}

/** Compares `value` with the golden file `name` (rewrites it under UPDATE_GOLDEN=1). */
async function assertGolden(name: string, value: unknown): Promise<void> {
  const file = new URL(name, GOLDEN);
  const actual = JSON.stringify(goldenForm(value), null, 2);
  if (UPDATE) {
    // Written as prettier writes it, so `npm run format:check` holds after an update.
    const prettier = await import('prettier');
    const options = await prettier.resolveConfig(file);
    writeFileSync(file, await prettier.format(actual, { ...options, parser: 'json' }));
  }
  // The file's formatting is prettier's; its content and every key's order are compared.
  const expected = JSON.stringify(JSON.parse(readFileSync(file, 'utf8')), null, 2);
  assert.equal(actual, expected, `${name} differs: rerun with UPDATE_GOLDEN=1 if intended`);
}

const microsandbox: DesiredInputs = {
  ...microsandboxWithCheckpointRoot,
  checkpointRoot: undefined,
};

test('DECL-01 HOST-08 golden: the installation wants these resources, each applied by root or by the node account, for Docker and for microsandbox (node-local and shared checkpoints)', async () => {
  await assertGolden('installation-desired.json', {
    docker: installationDesired(docker, { request: nodeRequest('docker'), manifest: MANIFEST }),
    microsandbox: installationDesired(microsandbox, {
      request: nodeRequest('microsandbox', { corePin: PIN }),
      manifest: MANIFEST,
    }),
    'microsandbox-checkpoint-root': installationDesired(microsandboxWithCheckpointRoot, {
      request: nodeRequest('microsandbox', {
        checkpointRoot: '/srv/oac-checkpoints',
        corePin: PIN,
      }),
      manifest: MANIFEST,
    }),
  });
});

test('DECL-01 golden form: a key added, removed or reordered, or a property changed, is a difference', () => {
  const form = (v: unknown) => JSON.stringify(goldenForm(v), null, 2);
  const base = [{ kind: 'file', key: 'k', mode: 0o600, content: 'a\nb\n' }];
  assert.notEqual(form(base), form([{ ...base[0], extra: undefined }]));
  assert.notEqual(form(base), form([{ key: 'k', kind: 'file', mode: 0o600, content: 'a\nb\n' }]));
  assert.notEqual(form(base), form([{ ...base[0], mode: 0o700 }]));
  assert.notEqual(form(base), form([{ ...base[0], content: 'a\nb' }]));
  assert.notEqual(form(base), form([...base, ...base]));
  assert.deepEqual(goldenForm(base), [
    { kind: 'file', key: 'k', mode: '0600', content: ['a', 'b', ''] },
  ]);
});
