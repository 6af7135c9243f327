// OPS-07 (issue #40): the support bundle's host facts and rerun, read from what the tools say:
// systemd's version from `systemctl --version`, a file system's bytes from `stat -f`, the
// directories an installation writes to (by its recorded provider), and the rerun's arguments
// as the record has them (installer/status-next.ts repairLines).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JournalData } from '../../records/journal.ts';
import { Host } from '../../src/host/host.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { statfsOf, writtenDirs } from '../../support/disk-space.ts';
import { systemdVersion } from '../../support/host-facts.ts';
import { rerunArgs } from '../../support/rerun-plan.ts';

const names = layout(parseInstallationId('inst-1'));

test('OPS-07 systemd version: the number on the first line of systemctl --version; anything else is refused', () => {
  const said = 'systemd 252 (252.39-1~deb12u2)\n+PAM +AUDIT +SELINUX\ndefault-hierarchy=unified';
  assert.deepEqual(systemdVersion(said), { version: 252, line: 'systemd 252 (252.39-1~deb12u2)' });
  assert.throws(() => systemdVersion('bash: systemctl: command not found'), /said/);
  assert.throws(() => systemdVersion(''), /said/);
});

test('OPS-07 free and total bytes: the blocks stat -f counts times their size; a garbled answer is refused', () => {
  assert.deepEqual(statfsOf('1000 4000 4096\n'), {
    free_bytes: 1000 * 4096,
    total_bytes: 4000 * 4096,
  });
  for (const garbled of ['', '12 34', 'a b c', '1 2 0', `1 ${2 ** 60} 4096`])
    assert.throws(() => statfsOf(garbled), /stat -f said/, garbled);
});

test("OPS-07 the directories measured: the node's own always; microsandbox's store and checkpoints, or Docker's data root, by the recorded provider (both when unknown)", () => {
  const paths = (dirs: ReturnType<typeof writtenDirs>) => dirs.map((d) => d.path);
  const own = ['/var/lib/oac-node', names.stateDir, '/etc/oac-node', '/var/log/oac-node'];
  own.push(names.programDir);
  const docker = { provider: 'docker' as const, group: 'docker', checkpoint_root: null };
  assert.deepEqual(paths(writtenDirs(names, docker, '/srv/docker')), [...own, '/srv/docker']);
  const micro = { provider: 'microsandbox' as const, group: 'kvm', checkpoint_root: '/mnt/cp' };
  assert.deepEqual(paths(writtenDirs(names, micro, '/srv/docker')), [
    ...own,
    '/var/lib/oac-node/.oac/m',
    '/mnt/cp',
  ]);
  const unknown = writtenDirs(names, undefined, { unavailable: 'Docker did not answer' });
  assert.deepEqual(paths(unknown), [
    ...own,
    '/var/lib/oac-node/.oac/m',
    '/var/lib/oac-node/.oac/m/checkpoints',
    null,
  ]);
  assert.equal(unknown.at(-1)?.unavailable, 'Docker did not answer');
});

test('OPS-07 the rerun: the recorded Core, ID and checkpoint store, --root under a scratch root, a dry run with --json', () => {
  const recorded = {
    installation_id: 'inst-1',
    core_url: 'https://core.example',
    inputs: { provider: 'microsandbox', group: 'kvm', checkpoint_root: '/mnt/cp' },
  } as JournalData;
  const common = ['install', '--core-url', 'https://core.example', '--installation-id', 'inst-1'];
  assert.deepEqual(rerunArgs(new Host('/'), recorded), [
    ...common,
    '--checkpoint-root',
    '/mnt/cp',
    '--dry-run',
    '--json',
  ]);
  const plain = { ...recorded, inputs: { ...recorded.inputs, checkpoint_root: null } };
  assert.deepEqual(rerunArgs(new Host('/tmp/scratch'), plain), [
    ...common,
    '--root',
    '/tmp/scratch',
    '--dry-run',
    '--json',
  ]);
});
