// HOST-12 PRE-03 PRE-09: a host that does not run systemd is refused in one line naming the
// supported hosts, before anything changes. This machine is such a host (its PID 1 is not
// systemd). The executable runs without --root, as on a real host, but in a private mount
// namespace where /etc, /var/lib and /usr/local are overlays and /run a tmpfs: whatever it
// wrote would land in the overlays' upper layers, listed afterwards, and never on this machine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { requireExecutable } from '../helpers/executable.ts';

const OVERLAID = ['/etc', '/var/lib', '/usr/local'];

const script = `
set -e
exe=$1
mount -t tmpfs -o mode=0700 oac-upper /mnt
for d in ${OVERLAID.join(' ')}; do
  n=$(echo "$d" | tr / _)
  mkdir -p "/mnt/$n/upper" "/mnt/$n/work"
  mount -t overlay overlay -o "lowerdir=$d,upperdir=/mnt/$n/upper,workdir=/mnt/$n/work" "$d"
done
mount -t tmpfs -o mode=0755 oac-run /run
set +e
"$exe" install --core-url http://127.0.0.1:9 --installation-id 3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f
echo "status=$?"
cd /mnt && find . -path '*/work' -prune -o -mindepth 3 -print | sed 's/^/changed: /'
find /run -mindepth 1 | sed 's/^/run: /'
`;

test('HOST-12 PRE-03 a host without systemd: one line, a hint naming the supported hosts, exit 1, nothing written', () => {
  assert.equal(existsSync('/run/systemd/system'), false, 'this machine runs no systemd as PID 1');
  const exe = requireExecutable();
  const run = spawnSync(
    'unshare',
    ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', exe],
    {
      input: 'EXAMPLE-enrollment-token-0123456789\n',
      encoding: 'utf8',
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    },
  );
  assert.equal(
    run.stderr,
    'oac-node: This host does not run systemd\n' +
      '  hint: The node runs as a systemd service. Supported hosts: Debian 11, 12 and 13 on amd64, booted with systemd (docs/supported-hosts.md).\n',
  );
  const lines = run.stdout.split('\n').filter((line) => line !== '');
  assert.ok(lines.includes('status=1'), run.stdout);
  const changes = lines.filter((line) => line.startsWith('changed: '));
  assert.deepEqual(changes, [], 'nothing under /etc, /var/lib or /usr/local');
  // The installer's lock (the run's own, in a tmpfs) is all /run may hold.
  const inRun = lines.filter((line) => line.startsWith('run: '));
  assert.ok(
    inRun.every((line) => /^run: \/run\/oac-node(\/installer\.lock)?$/.test(line)),
    inRun.join('\n'),
  );
});
