// FLEET-01 DECL-01: the Ansible role (YAML, which cannot import TypeScript) spells a few things
// the project owns elsewhere: the installation's journal path and the pasted line's bootstrap
// folder (src/layout.ts), and the line's clean start (installer/one-liner.ts: its PATH, its
// variables).
// These tests keep each spelling equal to its owner's, so a change there fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { PASSED_NAMES, SAFE_PATH } from '../../installer/one-liner.ts';
import { BOOTSTRAP_DIR, layout, parseInstallationId } from '../../src/layout.ts';

const role = new URL('../../deploy/ansible/roles/oac_node/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, role), 'utf8');

test('FLEET-01 DECL-01 the role finds an installation where src/layout.ts puts its journal', () => {
  const id = '3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f';
  const path = /path: '([^']*oac_node_installation_id[^']*)'/.exec(read('tasks/absent.yml'))?.[1];
  assert.equal(
    path?.replace('{{ oac_node_installation_id }}', id),
    layout(parseInstallationId(id)).journal,
  );
});

test("FLEET-01 BOOT-05 the role's clean start passes exactly the line's variables and PATH", () => {
  const vars = read('vars/main.yml');
  const pattern = /case \$\{l%%=\*\} in\s+([A-Z_a-z|]+)\)/.exec(vars)?.[1];
  assert.deepEqual(pattern?.split('|').sort(), [...PASSED_NAMES].sort());
  const allowed = /_oac_node_allowed_environment:\s*\[([^\]]*)\]/.exec(vars)?.[1] ?? '';
  assert.deepEqual(
    allowed
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '') // prettier's trailing comma
      .sort(),
    [...PASSED_NAMES].sort(),
  );
  assert.match(vars, new RegExp(`- PATH=${SAFE_PATH.replaceAll('/', '\\/')}\\n`));
});

test("FLEET-01 BOOT-03 the role keeps the installer in root's bootstrap folder, as the line does", () => {
  assert.match(
    read('defaults/main.yml'),
    new RegExp(`^oac_node_bootstrap_dir: /root/${BOOTSTRAP_DIR}$`, 'm'),
  );
});

// Issue #27 finding 3: a task whose module's arguments hold the token (or a proxy's password)
// has them on its `stdin:`. Each must keep them out of files and output on its own, whatever the
// play says: no_log, pipelining, and its own become method (with su, Ansible writes the module
// to a file; a play's become_method is invisible to the role's check).
test('FLEET-01 SEC-03 every task holding the token sets no_log, pipelining and become_method', () => {
  const holding = ['present.yml', 'absent.yml', 'installer.yml', 'main.yml'].flatMap((file) =>
    read(`tasks/${file}`)
      .split(/^(?=- name: )/m)
      .filter((task) => /^ {4}stdin: /m.test(task))
      .map((task) => ({ file, task })),
  );
  assert.deepEqual(
    holding.map(({ file, task }) => `${file}: ${/^- name: (.*)$/m.exec(task)?.[1]}`),
    [
      'present.yml: Node installed or rerun',
      'present.yml: Node checked (dry run)',
      'absent.yml: Node uninstalled',
    ],
  );
  for (const { file, task } of holding) {
    assert.match(task, /^ {2}no_log: true$/m, file);
    assert.match(task, /^ {2}become_method: ansible\.builtin\.sudo$/m, file);
    assert.match(
      task,
      /^ {2}vars:\n {4}ansible_pipelining: true\n {4}ansible_ssh_pipelining: true$/m,
    );
  }
});

test("FLEET-01 SEC-03 the role's check compares plugin names without Ansible's own prefixes", () => {
  const pattern = /^_oac_node_builtin_prefix: '(.*)'$/m.exec(read('vars/main.yml'))?.[1] ?? '$^';
  const bare = (name: string) => name.replace(new RegExp(pattern), '');
  assert.deepEqual(
    [
      'su',
      'ansible.builtin.su',
      'ansible.legacy.su',
      'ansible.builtin.ssh',
      'ansible_collections.ansible.builtin.plugins.connection.local',
      'community.general.sudosu',
      'ansible_collections.community.general.plugins.connection.chroot',
    ].map(bare),
    [
      'su',
      'su',
      'su',
      'ssh',
      'local',
      'community.general.sudosu',
      'ansible_collections.community.general.plugins.connection.chroot',
    ],
  );
  assert.match(
    read('tasks/main.yml'),
    /ansible_become_method \| default\('sudo'\) \| regex_replace\(_oac_node_builtin_prefix, ''\)\) == 'sudo'/,
  );
});
