// The diffs of the resources the node half reconciles as oac-node (HOST-08): the Runtime image
// in Docker, microsandbox's files, the image in the store, the provider file and the
// registration. Each diff is pure (docs/design.md "Shape"): the resources come from the node half's
// own desired value (src/node/node-desired.ts) for a fixed request and manifest, the actuals
// are what each probe returns, refusals included (plan data, issue #23).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeHalfDesired } from '../../src/node/node-desired.ts';
import { parseProviderFile, providerFileDigest } from '../../src/node/provider-file.ts';
import { dockerImageDriver } from '../../src/node/drivers/docker-image.ts';
import { nodeFileDriver } from '../../src/node/drivers/node-file.ts';
import { providerFileDriver } from '../../src/node/drivers/provider-file.ts';
import { registrationDriver } from '../../src/node/drivers/registration.ts';
import { storeImageDriver } from '../../src/node/drivers/store-image.ts';
import type { Kind, Resource, ResourceOf } from '../../src/resources/resources.ts';
import type { Action } from '../../src/core/step.ts';
import { MANIFEST, PIN, RELEASE, nodeRequest } from './node-half-fixture.ts';

const docker = nodeHalfDesired(nodeRequest('docker'), MANIFEST);
const microsandbox = nodeHalfDesired(nodeRequest('microsandbox'), MANIFEST);
function pick<K extends Kind>(list: Resource[], kind: K, key?: string): ResourceOf<K> {
  const r = list.find((x) => x.kind === kind && (key === undefined || x.key === key));
  if (r === undefined) throw new Error(`no ${kind} ${key ?? ''}`);
  return r as ResourceOf<K>;
}
const none = new Map<string, Action>();
const RUNTIME_ARCHIVE = `oac-${RELEASE}-linux-amd64-runtime.tar.gz`;

test('DL-05 HOST-07 docker image: the release image already in Docker → unchanged, nothing downloaded; absent → create (download and load)', () => {
  const r = pick(docker, 'docker-image');
  assert.equal(r.reference, `oac-runtime:${RELEASE}`);
  assert.deepEqual(dockerImageDriver.diff(r, { present: true }, none), {
    kind: 'unchanged',
    detail: `image oac-runtime:${RELEASE}`,
  });
  assert.deepEqual(dockerImageDriver.diff(r, { present: false }, none), {
    kind: 'create',
    detail: `download ${RUNTIME_ARCHIVE} and load oac-runtime:${RELEASE}`,
  });
});

test('DL-01 DL-02 node file: each microsandbox file verified → unchanged (reused); missing, partial or another SHA-256 → create (download)', () => {
  const files = microsandbox.filter((x): x is ResourceOf<'node-file'> => x.kind === 'node-file');
  assert.deepEqual(
    files.map((f) => f.key),
    ['microsandbox-runtime', 'microsandbox-firmware', 'microsandbox-helper'],
  );
  for (const r of files) {
    assert.deepEqual(nodeFileDriver.diff(r, { verified: true }, none), {
      kind: 'unchanged',
      detail: `${r.file} verified`,
    });
    assert.deepEqual(nodeFileDriver.diff(r, { verified: false }, none), {
      kind: 'create',
      detail: `download ${r.file}`,
    });
  }
});

test('HOST-04 RERUN-01 store image: imported (its index.json there) → unchanged; absent or a half import → create (download and import)', () => {
  const r = pick(microsandbox, 'store-image');
  assert.equal(r.dir, `/var/lib/oac-node/.oac/m/images/${'3'.repeat(64)}`);
  assert.deepEqual(storeImageDriver.diff(r, { present: true }, none), {
    kind: 'unchanged',
    detail: `image oac-runtime:${RELEASE} in ${r.dir}`,
  });
  assert.deepEqual(storeImageDriver.diff(r, { present: false }, none), {
    kind: 'create',
    detail: `download ${RUNTIME_ARCHIVE} and import oac-runtime:${RELEASE}`,
  });
});

test('ENR-02 RERUN-01 registration: not registered (with or without a pin) → create; registered with the same pin → unchanged, no token needed', () => {
  const plain = pick(docker, 'registration');
  const pinned = pick(
    nodeHalfDesired(nodeRequest('docker', { corePin: PIN }), MANIFEST),
    'registration',
  );
  assert.equal(plain.corePin, null);
  assert.equal(pinned.corePin, PIN);
  for (const r of [plain, pinned]) {
    for (const pin of [null, PIN]) {
      assert.deepEqual(registrationDriver.diff(r, { registered: false, pin }, none), {
        kind: 'create',
        detail: 'register with https://core.example',
      });
    }
    assert.deepEqual(registrationDriver.diff(r, { registered: true, pin: r.corePin }, none), {
      kind: 'unchanged',
      detail: 'registered with https://core.example',
    });
  }
});

test("TRUST-01 registration: a registered node rerun with another pin → update of the trusted key, naming the old and new one (the host's store when none)", () => {
  const plain = pick(docker, 'registration');
  const pinned = pick(
    nodeHalfDesired(nodeRequest('docker', { corePin: PIN }), MANIFEST),
    'registration',
  );
  const other = `sha256:${'e'.repeat(64)}`;
  assert.deepEqual(registrationDriver.diff(pinned, { registered: true, pin: null }, none), {
    kind: 'update',
    detail: `trust the key ${PIN} for Core (was the host's trust store)`,
  });
  assert.deepEqual(registrationDriver.diff(pinned, { registered: true, pin: other }, none), {
    kind: 'update',
    detail: `trust the key ${PIN} for Core (was the key ${other})`,
  });
  assert.deepEqual(registrationDriver.diff(plain, { registered: true, pin: PIN }, none), {
    kind: 'update',
    detail: `trust the host's trust store for Core (was the key ${PIN})`,
  });
});

const providerFile = pick(docker, 'provider-file');
const approved = providerFileDigest(parseProviderFile(providerFile.content, 'the test'));
const another = providerFile.content.replace('"cpus": 2', '"cpus": 3');

test("RERUN-03 provider file before registration: absent → create; the same text → unchanged; another one (a failed attempt's) → replace", () => {
  const r = providerFile;
  const before = { registered: false };
  assert.deepEqual(providerFileDriver.diff(r, { ...before, current: undefined }, none), {
    kind: 'create',
    detail: `write ${r.path}`,
  });
  assert.deepEqual(providerFileDriver.diff(r, { ...before, current: r.content }, none), {
    kind: 'unchanged',
    detail: r.path,
  });
  for (const current of ['', '{', r.content.replace('docker.sock', 'other.sock')]) {
    assert.deepEqual(providerFileDriver.diff(r, { ...before, current }, none), {
      kind: 'replace',
      detail: `replace ${r.path}`,
    });
  }
});

test('RERUN-01 NODE-05 provider file of a registered node: exactly the approved text → unchanged', () => {
  const r = providerFile;
  assert.equal(r.path, '/var/lib/oac-node/.oac/nodes/inst-1/provider.json');
  assert.deepEqual(
    providerFileDriver.diff(r, { current: r.content, registered: true, approved }, none),
    { kind: 'unchanged', detail: r.path },
  );
});

test('NODE-04 NODE-05 provider file of a registered node, damaged (edited, reformatted, truncated, not JSON, deleted): restored as approved when this run writes exactly the approved file', () => {
  const r = providerFile;
  assert.notEqual(another, r.content, 'the edited file differs from the approved one');
  const damaged = [
    another, // edited: another capacity, so the node gets no work until restored (NODE-05)
    `${r.content.trimEnd()}\n\n`, // the same JSON, other bytes
    r.content.slice(0, 40), // truncated
    'not json',
    '',
    undefined, // deleted
  ];
  for (const current of damaged) {
    assert.deepEqual(
      providerFileDriver.diff(r, { current, registered: true, approved }, none),
      { kind: 'replace', detail: `restore ${r.path} as approved`, why: 'damaged' },
      JSON.stringify(current),
    );
  }
});

test('RERUN-02 NODE-05 provider file of a registered node, this command gives other settings: refused as plan data, whether the file is there, damaged or gone', () => {
  const r = { ...providerFile, content: another }; // this command's settings: not the approved ones
  for (const current of [providerFile.content, 'not json', undefined]) {
    const action = providerFileDriver.diff(r, { current, registered: true, approved }, none);
    assert.equal(action.kind, 'refuse', JSON.stringify(current));
    assert.deepEqual(
      action.refusals?.map((x) => x.code),
      ['provider_file_changed'],
    );
    assert.match(action.detail, /registered with other node settings than this command gives/);
  }
  // Without an approved digest on record nothing passes for approved (not even a text that does
  // not parse, whose digest is undefined too).
  const unparsable = { ...providerFile, content: 'not json' };
  const unapproved = providerFileDriver.diff(
    unparsable,
    { current: undefined, registered: true, approved: undefined },
    none,
  );
  assert.equal(unapproved.kind, 'refuse');
});
