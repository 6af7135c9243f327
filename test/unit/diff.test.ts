// Every driver's diff is pure (docs/design.md "Shape"): desired and actual in, one action out. These
// are the decisions install, rerun, --dry-run, status and uninstall all share (DECL-01…03).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { desired } from '../helpers/desired.ts';
import { accountDriver } from '../../src/resources/drivers/account.ts';
import { directoryDriver } from '../../src/resources/drivers/directory.ts';
import { fileDriver } from '../../src/resources/drivers/file.ts';
import { membershipDriver } from '../../src/resources/drivers/membership.ts';
import { networkDriver } from '../../src/resources/drivers/network.ts';
import { nodeHalfDriver } from '../../src/installation/node-half.ts';
import { RESTART_OWED, serviceDriver } from '../../src/resources/drivers/service.ts';
import { migrateFormat1 } from '../../records/journal-format1.ts';
import * as z from 'zod';
import { unitDriver } from '../../src/resources/drivers/unit.ts';
import type { Kind, ResourceOf } from '../../src/resources/resources.ts';
import type { Action } from '../../src/core/step.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';

const list = desired({
  layout: layout(parseInstallationId('inst-1')),
  provider: 'docker',
  group: 'docker',
  coreUrl: 'https://core.example',
  corePin: null,
  proxyEnv: { http_proxy: 'http://p.test:3128' },
  envKey: '0'.repeat(64),
  program: { source: '/tmp/oac-node', sha256: 'a'.repeat(64) },
});
function pick<K extends Kind>(kind: K, key?: string): ResourceOf<K> {
  const r = list.find((x) => x.kind === kind && (key === undefined || x.key === key));
  if (r === undefined) throw new Error(`no ${kind}`);
  return r as ResourceOf<K>;
}
const none = new Map<string, Action>();
const user = {
  name: 'oac-node',
  uid: 65532,
  gid: 65532,
  home: '/var/lib/oac-node',
  shell: '/usr/sbin/nologin',
};
/** A refusal as plan data (issue #23): the action refuses, with that code, instead of throwing. */
function assertRefused(action: Action, c: string): void {
  assert.equal(action.kind, 'refuse');
  assert.deepEqual(
    action.refusals?.map((r) => r.code),
    [c],
  );
}

test('HOST-01 account: absent → create; its UID held by another → refused; another shape → refused; ours → unchanged', () => {
  const r = pick('account');
  assert.equal(accountDriver.diff(r, { byName: undefined, byUid: undefined }, none).kind, 'create');
  const other = { ...user, name: 'someone' };
  assertRefused(accountDriver.diff(r, { byName: undefined, byUid: other }, none), 'uid_taken');
  const foreign = { ...user, shell: '/bin/bash' };
  assertRefused(
    accountDriver.diff(r, { byName: foreign, byUid: foreign }, none),
    'account_foreign',
  );
  assert.equal(accountDriver.diff(r, { byName: user, byUid: user }, none).kind, 'unchanged');
});

test('HOST-02 membership: a member (listed or through the primary group) → unchanged; not → create, saying so', () => {
  const r = pick('membership');
  assert.equal(membershipDriver.diff(r, { member: true, listed: false }, none).kind, 'unchanged');
  const add = membershipDriver.diff(r, { member: false, listed: false }, none);
  assert.equal(add.kind, 'create');
  assert.match(add.why ?? '', /no longer in group docker/);
});

test('SEC-02 directory: absent → create; a link or file in its place → refused; there → unchanged', () => {
  const r = pick('directory', 'directory:home');
  assert.equal(directoryDriver.diff(r, { exists: false, isDirectory: false }, none).kind, 'create');
  assertRefused(
    directoryDriver.diff(r, { exists: true, isDirectory: false }, none),
    'not_a_directory',
  );
  assert.equal(
    directoryDriver.diff(r, { exists: true, isDirectory: true }, none).kind,
    'unchanged',
  );
});

test('HOST-06 file: create, replace on another digest, update on owner or mode, remove when wanted absent', () => {
  const program = pick('file', 'program');
  const same = { exists: true, regular: true, sha256: 'a'.repeat(64), mode: 0o755, uid: 0 };
  assert.equal(fileDriver.diff(program, { exists: false }, none).kind, 'create');
  assert.equal(fileDriver.diff(program, same, none).kind, 'unchanged');
  const swapped = fileDriver.diff(program, { ...same, sha256: 'b'.repeat(64) }, none);
  assert.equal(swapped.kind, 'replace');
  assert.match(swapped.why ?? '', /its SHA-256 is b{64}, not the installed a{64}/);
  assert.equal(fileDriver.diff(program, { ...same, mode: 0o777 }, none).kind, 'update');
  assert.equal(fileDriver.diff(program, { ...same, uid: 1000 }, none).kind, 'update');
  assert.equal(fileDriver.diff(program, { ...same, regular: false }, none).kind, 'replace');
  // A directory in its place is refused in the plan, not replaced half way through a run.
  const directory = { exists: true, regular: false, directory: true, mode: 0o755, uid: 0 };
  assertRefused(fileDriver.diff(program, directory, none), 'not_a_file');
  const unknown = { ...program, sha256: undefined }; // a record from before digests were kept
  assert.equal(
    fileDriver.diff(unknown, { ...same, sha256: 'c'.repeat(64) }, none).kind,
    'unchanged',
  );
  const absentWanted = { ...pick('file', 'proxy-settings'), sha256: null };
  assert.equal(fileDriver.diff(absentWanted, same, none).kind, 'remove');
  assert.equal(fileDriver.diff(absentWanted, { exists: false }, none).kind, 'skip');
});

test('HOST-03 unit: absent → create; edited by hand → update; same digest → unchanged; a directory → refused', () => {
  const r = pick('unit');
  assert.equal(unitDriver.diff(r, { exists: false }, none).kind, 'create');
  const edited = unitDriver.diff(r, { exists: true, sha256: 'f'.repeat(64) }, none);
  assert.equal(edited.kind, 'update');
  assert.match(edited.why ?? '', /edited by hand/);
  assert.equal(unitDriver.diff(r, { exists: true, sha256: r.sha256 }, none).kind, 'unchanged');
  // A directory in its place is refused in the plan, not written over half way through a run.
  assertRefused(unitDriver.diff(r, { exists: true, directory: true }, none), 'not_a_file');
});

test('DECL-03 service: started when not running; restarted when what it reads changes in this run or since it started; else unchanged', () => {
  const r = pick('service');
  const running = { enabled: true, active: true, canStart: true, startedWith: r.inputs };
  assert.equal(serviceDriver.diff(r, running, none).kind, 'unchanged');
  assert.equal(serviceDriver.diff(r, { ...running, active: false }, none).kind, 'create');
  assert.equal(serviceDriver.diff(r, { ...running, enabled: false }, none).kind, 'create');
  for (const key of ['proxy-settings', 'unit', 'program', 'group-membership:docker']) {
    const changed = new Map<string, Action>([
      [key, { kind: key === 'group-membership:docker' ? 'create' : 'replace', detail: '' }],
    ]);
    const restart = serviceDriver.diff(r, running, changed);
    assert.equal(restart.kind, 'update', key);
    assert.match(restart.detail, new RegExp(`restart .*${key}`), key);
  }
  const quiet = new Map<string, Action>([['unit', { kind: 'unchanged', detail: '' }]]);
  assert.equal(serviceDriver.diff(r, running, quiet).kind, 'unchanged');
  assert.equal(serviceDriver.diff(r, { ...running, startedWith: 'old' }, none).kind, 'update');
  assert.equal(
    serviceDriver.diff(r, { ...running, startedWith: undefined }, none).kind,
    'unchanged',
  );
  const offline = { ...running, canStart: false, enabled: false };
  assert.match(serviceDriver.diff(r, offline, none).detail, /^enable .*not started/);
});

test('HOST-07 network: Docker silent → skip (status says why); absent → create; there → unchanged', () => {
  const r = pick('network');
  const silent = networkDriver.diff(r, { exists: false, reachable: false, labelled: false }, none);
  assert.equal(silent.kind, 'skip');
  assert.match(silent.why ?? '', /Docker does not answer/);
  assert.equal(
    networkDriver.diff(r, { exists: false, reachable: true, labelled: false }, none).kind,
    'create',
  );
  assert.equal(
    networkDriver.diff(r, { exists: true, reachable: true, labelled: false }, none).kind,
    'unchanged',
  );
});

test('HOST-08 node half: a new host → create; the child plans nothing → unchanged; else how many of its steps change (each a part of its own: node-step.test.ts)', () => {
  const r = pick('node');
  assert.equal(nodeHalfDriver.diff(r, { planned: undefined }, none).kind, 'create');
  const quiet = [
    { kind: 'unchanged', detail: 'a' },
    { kind: 'skip', detail: 'b' },
  ] as Action[];
  assert.equal(nodeHalfDriver.diff(r, { planned: quiet }, none).kind, 'unchanged');
  const busy = nodeHalfDriver.diff(
    r,
    { planned: [...quiet, { kind: 'create', detail: 'network x' }] },
    none,
  );
  assert.equal(busy.kind, 'update');
  assert.equal(busy.detail, '1 step of the node half changes (as oac-node)');
});

test('DECL-03 service: a restart owed by a killed run is done; an active service someone disabled is enabled, and restarted when owed', () => {
  const r = pick('service');
  const running = { enabled: true, active: true, canStart: true, startedWith: r.inputs };
  const owed = serviceDriver.diff(r, { ...running, startedWith: RESTART_OWED }, none);
  assert.equal(owed.kind, 'update');
  assert.match(owed.detail, /^restart /);
  const disabled = serviceDriver.diff(r, { ...running, enabled: false }, none);
  assert.equal(disabled.kind, 'create');
  assert.match(disabled.detail, /^enable /);
  const both = serviceDriver.diff(
    r,
    { ...running, enabled: false, startedWith: RESTART_OWED },
    none,
  );
  assert.equal(both.kind, 'update', 'restarted (and enabled by the update)');
});

test('HOST-03 DECL-03 unit: a copy systemd has not reloaded, or an owner or mode changed, is rewritten', () => {
  const r = pick('unit');
  const same = { exists: true, sha256: r.sha256, rootOnly: true, stale: false };
  assert.equal(unitDriver.diff(r, same, none).kind, 'unchanged');
  assert.match(unitDriver.diff(r, { ...same, stale: true }, none).why ?? '', /daemon-reload/);
  assert.equal(unitDriver.diff(r, { ...same, stale: true }, none).kind, 'update');
  assert.equal(unitDriver.diff(r, { ...same, rootOnly: false }, none).kind, 'update');
});

test("SEC-02 a program directory another account owns or can write is drift, repaired; the home is the node's", () => {
  const dir = pick('directory', 'directory:program');
  const ok = { exists: true, isDirectory: true, uid: 0, mode: 0o755 };
  assert.equal(directoryDriver.diff(dir, ok, none).kind, 'unchanged');
  assert.equal(directoryDriver.diff(dir, { ...ok, uid: 65532 }, none).kind, 'update');
  assert.equal(directoryDriver.diff(dir, { ...ok, mode: 0o777 }, none).kind, 'update');
  const home = pick('directory', 'directory:home');
  assert.equal(
    directoryDriver.diff(home, { ...ok, uid: 65532, mode: 0o750 }, none).kind,
    'unchanged',
  );
});

test('DECL-02 UNI-05 a format-1 journal migrates: kinds renamed, inputs derived, a store kept unconfirmed stays so', () => {
  const v1 = {
    format: 1,
    installation_id: 'inst-1',
    core_url: 'http://127.0.0.1:9',
    created_at: 'x',
    updated_at: 'x',
    resources: {
      'account:oac-node': { kind: 'account', name: 'oac-node', ownership: 'owned', detail: {} },
      'group-membership:kvm': {
        kind: 'group-membership',
        name: 'kvm',
        ownership: 'owned',
        detail: {},
      },
      store: {
        kind: 'directory',
        name: '/var/lib/oac-node/.oac/m',
        ownership: 'owned',
        detail: { kept_unconfirmed: true },
      },
      'checkpoint-root': {
        kind: 'directory',
        name: '/srv/ckpt',
        ownership: 'adopted',
        detail: { shared: true },
      },
      unit: {
        kind: 'unit',
        name: '/etc/systemd/system/oac-node-inst-1.service',
        ownership: 'owned',
        detail: {},
      },
    },
  };
  const v2 = migrateFormat1(Buffer.from(JSON.stringify(v1)), z.unknown()) as {
    inputs: unknown;
    resources: Record<string, { kind: string; props: Record<string, unknown> }>;
  };
  assert.deepEqual(v2.inputs, {
    provider: 'microsandbox',
    group: 'kvm',
    checkpoint_root: '/srv/ckpt',
  });
  assert.equal(v2.resources['group-membership:kvm']?.kind, 'membership');
  assert.equal(v2.resources.store?.props.kept_unconfirmed, true);
  assert.equal(v2.resources['checkpoint-root'], undefined, 'an input now, not a resource');
  assert.equal(v2.resources.service?.kind, 'service', "the service takes the unit's ownership");
});

test("DECL-03 node half: when a new program is installed first, the old program's plan is not the one that runs", () => {
  const r = pick('node');
  const quiet = [{ kind: 'unchanged', detail: 'a' }] as Action[];
  const replaced = new Map<string, Action>([['program', { kind: 'replace', detail: '' }]]);
  const plan = nodeHalfDriver.diff(r, { planned: quiet }, replaced);
  assert.equal(plan.kind, 'update');
  assert.match(plan.detail, /new program/);
  // What the installed program refuses stops the run all the same, before anything is written.
  const refusal = { code: 'provider_file_changed', message: 'other settings' };
  const refused = [{ kind: 'refuse', detail: 'other settings', refusals: [refusal] }] as Action[];
  assertRefused(nodeHalfDriver.diff(r, { planned: refused }, replaced), 'provider_file_changed');
});
