// SEC-08 at the cheapest tier: the rendered unit carries the sandbox for each provider, and
// leaves out what the node cannot live with. The exposure figure itself is measured by
// systemd-analyze in the e2e host (test/e2e/sandbox.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderUnit } from '../../src/resources/unit-file.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';

const names = layout(parseInstallationId('inst-1'));
const render = (provider: 'docker' | 'microsandbox', checkpointRoot?: string) =>
  renderUnit({ layout: names, coreUrl: 'https://core.example', provider, checkpointRoot });

/** The [Service] settings, as name → values (a name may repeat, as SystemCallFilter= does). */
function settings(unit: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m?.[1] !== undefined) map.set(m[1], [...(map.get(m[1]) ?? []), m[2] ?? '']);
  }
  return map;
}

const COMMON: Record<string, string[]> = {
  User: ['oac-node'],
  PrivateUsers: ['yes'],
  NoNewPrivileges: ['yes'],
  CapabilityBoundingSet: [''],
  AmbientCapabilities: [''],
  ProtectSystem: ['strict'],
  ProtectHome: ['yes'],
  PrivateTmp: ['yes'],
  PrivateMounts: ['yes'],
  ProtectKernelTunables: ['yes'],
  ProtectKernelModules: ['yes'],
  ProtectKernelLogs: ['yes'],
  ProtectControlGroups: ['yes'],
  ProtectClock: ['yes'],
  ProtectHostname: ['yes'],
  ProtectProc: ['invisible'],
  ProcSubset: ['pid'],
  RestrictNamespaces: ['yes'],
  RestrictSUIDSGID: ['yes'],
  RestrictRealtime: ['yes'],
  RestrictAddressFamilies: ['AF_UNIX AF_INET AF_INET6'],
  LockPersonality: ['yes'],
  RemoveIPC: ['yes'],
  LimitCORE: ['0'],
  SystemCallArchitectures: ['native'],
  SystemCallFilter: ['@system-service', '~@privileged @resources'],
  SystemCallErrorNumber: ['EPERM'],
};

for (const provider of ['docker', 'microsandbox'] as const) {
  test(`SEC-08: the ${provider} unit carries the sandbox settings`, () => {
    const unit = settings(render(provider));
    for (const [name, values] of Object.entries(COMMON))
      assert.deepEqual(unit.get(name), values, `${name}=`);
  });

  test(`SEC-08: the ${provider} unit leaves write+execute memory and the network alone`, () => {
    // V8's JIT needs W+X mappings; the node must reach Core and the host's Docker socket.
    const unit = settings(render(provider));
    for (const name of ['MemoryDenyWriteExecute', 'PrivateNetwork', 'IPAddressDeny'])
      assert.equal(unit.get(name), undefined, `${name}= is not set`);
  });
}

test('SEC-08: Docker gets private devices; microsandbox only /dev/kvm besides the pseudo devices', () => {
  const docker = settings(render('docker'));
  assert.deepEqual(docker.get('PrivateDevices'), ['yes']);
  assert.equal(docker.get('DeviceAllow'), undefined);
  const microsandbox = settings(render('microsandbox'));
  assert.equal(microsandbox.get('PrivateDevices'), undefined, 'it would hide /dev/kvm');
  assert.deepEqual(microsandbox.get('DevicePolicy'), ['closed']);
  assert.deepEqual(microsandbox.get('DeviceAllow'), ['/dev/kvm rw']);
});

test('SEC-08 HOST-11: the sandbox may write only the home, and a shared checkpoint store', () => {
  assert.deepEqual(settings(render('docker')).get('ReadWritePaths'), ['/var/lib/oac-node']);
  assert.deepEqual(settings(render('microsandbox', '/srv/cp')).get('ReadWritePaths'), [
    '/var/lib/oac-node /srv/cp',
  ]);
});
