// Issue #25 item 6, FLEET-01: the role documents itself as Ansible users expect: Debian's
// ansible-doc renders it (it refuses a role any of whose options has no description), and every
// variable the role's defaults set is one of the options it documents; ansible-lint passes it.
// Issue #39 item 11: the token, required for present, is one of those options too (it once was
// not, so ansible-doc never showed it), the facts the role returns are described, the role's own
// action (its --diff, action_plugins/oac_node_diff.py) renders in ansible-doc, and the role's meta
// names every Debian release the installer supports (11, 12 and 13), not bookworm alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const roles = new URL('../../deploy/ansible/roles/', import.meta.url).pathname;

/** Debian's ansible-doc, with a home of its own (Ansible may keep files under ~/.ansible). */
function ansibleDoc(args: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'oac-ansible-doc-'));
  const doc = spawnSync('ansible-doc', args, {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ANSIBLE_ROLES_PATH: roles,
      HOME: home,
      // Nothing written beside the role's Python files (__pycache__).
      PYTHONDONTWRITEBYTECODE: '1',
    },
    timeout: 60_000,
  });
  rmSync(home, { recursive: true, force: true });
  return doc;
}

/** ansible-doc's text as one line: it wraps and indents descriptions. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

test('FLEET-01 issue #25 ansible-doc renders the role, every default among its documented options', () => {
  const doc = ansibleDoc(['-t', 'role', 'oac_node']);
  assert.equal(doc.status, 0, doc.stderr);
  assert.match(doc.stdout, /ENTRY POINT: main - Install, rerun or uninstall an oac-node/);
  const defaults = readFileSync(`${roles}oac_node/defaults/main.yml`, 'utf8');
  const names = [...defaults.matchAll(/^(oac_node_[a-z_]+):/gm)].map((m) => m[1] ?? '');
  assert.ok(names.length >= 10, names.join(' '));
  for (const name of names) assert.match(doc.stdout, new RegExp(`^[-=] ${name}$`, 'm'), name);
});

test('FLEET-01 SEC-03 issue #39 ansible-doc shows oac_node_token (required for present, from Ansible Vault, on standard input only) and the facts the role returns', () => {
  const doc = ansibleDoc(['-t', 'role', 'oac_node']);
  assert.equal(doc.status, 0, doc.stderr);
  // Optional to Ansible's own check (`-`, not `=`): absent needs no token; tasks/main.yml checks
  // it for present.
  const token = /^- oac_node_token\n((?: {8}.*\n)+)/m.exec(doc.stdout)?.[1];
  assert.ok(token !== undefined, doc.stdout);
  assert.match(flat(token), /Required for state present/);
  assert.match(flat(token), /Ansible Vault/);
  assert.match(flat(token), /on standard input only/);
  assert.match(flat(token), /type: str/);
  for (const fact of ['oac_node_id', 'oac_node_version', 'oac_node_changed'])
    assert.match(flat(doc.stdout), new RegExp(`Returns the facts [^.]*${fact}`), fact);
});

test("FLEET-01 issue #39 ansible-doc renders the role's own action oac_node_diff (its --diff)", () => {
  const doc = ansibleDoc(['-M', `${roles}oac_node/library`, 'oac_node_diff']);
  assert.equal(doc.status, 0, doc.stderr);
  assert.match(doc.stdout, /^> OAC_NODE_DIFF /m);
  assert.match(doc.stdout, /^= lines$/m);
});

test("FLEET-01 issue #39 the role's meta names Debian 11, 12 and 13 (bullseye, bookworm, trixie)", () => {
  // Read as YAML by the Python Ansible runs on (its PyYAML), not by a pattern.
  const parsed = spawnSync(
    '/usr/bin/python3',
    [
      '-c',
      'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))',
      `${roles}oac_node/meta/main.yml`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(parsed.status, 0, parsed.stderr);
  const { galaxy_info: info } = JSON.parse(parsed.stdout) as {
    galaxy_info: { platforms: Array<{ name: string; versions: string[] }> };
  };
  assert.deepEqual(info.platforms, [
    { name: 'Debian', versions: ['bullseye', 'bookworm', 'trixie'] },
  ]);
});

test('FLEET-01 issue #25 ansible-lint (Debian 12) passes the role and the playbook at its production profile', () => {
  const home = mkdtempSync(join(tmpdir(), 'oac-ansible-lint-'));
  const lint = spawnSync('ansible-lint', ['--offline', '-p', '--nocolor'], {
    cwd: new URL('../../deploy/ansible/', import.meta.url).pathname,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 300_000,
  });
  rmSync(home, { recursive: true, force: true });
  assert.equal(lint.status, 0, `${lint.stdout}\n${lint.stderr}`);
  assert.match(`${lint.stdout}${lint.stderr}`, /Passed with production profile: 0 failure\(s\)/);
  // Issue #39: the lint knows the role's own action (oac_node_diff) by its documentation
  // (library/oac_node_diff.py); without it, it warns that it cannot resolve the action.
  assert.doesNotMatch(`${lint.stdout}${lint.stderr}`, /Unable to (resolve|load) /);
});
