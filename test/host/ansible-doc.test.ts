// Issue #25 item 6, FLEET-01: the role documents itself as Ansible users expect: Debian's
// ansible-doc renders it (it refuses a role any of whose options has no description), and every
// variable the role's defaults set is one of the options it documents; ansible-lint passes it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const roles = new URL('../../deploy/ansible/roles/', import.meta.url).pathname;

test('FLEET-01 issue #25 ansible-doc renders the role, every default among its documented options', () => {
  // A home of its own: Ansible may keep files under ~/.ansible.
  const home = mkdtempSync(join(tmpdir(), 'oac-ansible-doc-'));
  const doc = spawnSync('ansible-doc', ['-t', 'role', 'oac_node'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ANSIBLE_ROLES_PATH: roles, HOME: home },
    timeout: 60_000,
  });
  rmSync(home, { recursive: true, force: true });
  assert.equal(doc.status, 0, doc.stderr);
  assert.match(doc.stdout, /ENTRY POINT: main - Install, rerun or uninstall an oac-node/);
  const defaults = readFileSync(`${roles}oac_node/defaults/main.yml`, 'utf8');
  const names = [...defaults.matchAll(/^(oac_node_[a-z_]+):/gm)].map((m) => m[1] ?? '');
  assert.ok(names.length >= 10, names.join(' '));
  for (const name of names) assert.match(doc.stdout, new RegExp(`^[-=] ${name}$`, 'm'), name);
});

test('FLEET-01 issue #25 ansible-lint (Debian 12) passes the role and the playbook at its production profile', () => {
  const home = mkdtempSync(join(tmpdir(), 'oac-ansible-lint-'));
  const lint = spawnSync('ansible-lint', ['--offline', '-p', '--nocolor'], {
    cwd: new URL('../../deploy/ansible/', import.meta.url).pathname,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    timeout: 300_000,
  });
  rmSync(home, { recursive: true, force: true });
  assert.equal(lint.status, 0, `${lint.stdout}\n${lint.stderr}`);
  assert.match(`${lint.stdout}${lint.stderr}`, /Passed with production profile: 0 failure\(s\)/);
});
