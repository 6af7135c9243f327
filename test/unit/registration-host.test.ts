// NODE-06 (issue #40): the registration's plan records the host a node belongs to: a node
// registered before the host ID was kept gets it (an update, shown), the same ID is no change,
// a host without a machine ID records nothing, and a new ID (root refused a copy before; only a
// confirmed --same-host gets here) is an update that says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registrationDriver } from '../../src/node/drivers/registration.ts';
import type { RegistrationResource } from '../../src/resources/resources.ts';

const ID = 'a'.repeat(32);
const resource = (hostId: string | null, sameHost = false): RegistrationResource => ({
  kind: 'registration',
  key: 'enroll',
  phase: 'prepare',
  title: 'Register with Core',
  stateDir: '/var/lib/oac-node/.oac/nodes/x',
  configPath: '/var/lib/oac-node/.oac/nodes/x/provider.json',
  coreUrl: 'https://core.example',
  corePin: null,
  name: 'node-1',
  hostId,
  sameHost,
});
const diff = (r: RegistrationResource, actual: { pin?: string | null; hostId?: string | null }) =>
  registrationDriver.diff(r, { registered: true, pin: null, ...actual }, new Map());

test('NODE-06 the registration records the host: once when missing, never again when the same', () => {
  assert.deepEqual(diff(resource(ID), {}), {
    kind: 'update',
    detail: 'record the host this node belongs to',
  });
  assert.equal(diff(resource(ID), { hostId: ID }).kind, 'unchanged');
  assert.equal(diff(resource(null), {}).kind, 'unchanged', 'no machine ID: nothing to record');
  assert.equal(diff(resource(null), { hostId: ID }).kind, 'unchanged');
  assert.deepEqual(diff(resource(ID, true), { hostId: 'b'.repeat(32) }), {
    kind: 'update',
    detail: "record this host's new machine ID (confirmed with --same-host)",
  });
  const both = diff(resource(ID), { pin: 'sha256:' + '0'.repeat(64) });
  assert.equal(both.kind, 'update');
  assert.match(both.detail ?? '', /^trust the host's trust store for Core .*; record the host/);
  assert.equal(
    registrationDriver.diff(resource(ID), { registered: false, pin: null }, new Map()).kind,
    'create',
  );
});
