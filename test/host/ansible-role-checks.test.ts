// Issue #39 item 11 (FLEET-01, SEC-03): what the Ansible role checks before anything changes,
// and what it returns.
//
// - The token is one of the role's documented options (meta/argument_specs.yml), and the
//   operator keeps it in Ansible Vault: a vault-encrypted (`!vault`) token must pass Ansible's
//   own check of those options. ansible-core 2.14 (Debian 12's) fails every vault-encrypted
//   value of an option marked no_log (ansible/ansible#79624), so the spec leaves no_log out.
// - A missing token (state present) once failed the host with a paragraph of seven
//   requirements; it now fails with one line naming oac_node_token and where it comes from.
//   absent needs no token.
// - The role returns the facts oac_node_id, oac_node_version and oac_node_changed (from the
//   installer's --json summary).
// - --diff was a debug task's message; it is Ansible's own diff now (the role's action
//   oac_node_diff), rendered as any module's: `--- before`, `+++ after`, one `+` line per step
//   that changed (in check mode, per step of the plan that would). Without --diff that task is
//   ok and shows nothing.
//
// Debian's real ansible-playbook runs the real role against this machine (connection local, as
// root, no become) with a fake installer: a shell script that records a digest of the token it
// read on standard input and prints the --json events a real installer would. Everything the
// run writes is under the test's own directory in root's home (the role's installer directory
// must be below directories only root can write, so not below /tmp): Ansible's temporary
// directories and home, the installer's directory, the vault's throwaway password. Nothing of
// the machine changes: no user, unit or package, nothing under /etc.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { filesHolding } from '../e2e/helpers/secret-watch.ts';

const ROLES = fileURLToPath(new URL('../../deploy/ansible/roles', import.meta.url));
const INSTALLATION_ID = '3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f';
const MISSING_TOKEN =
  "oac_node: oac_node_token is required for oac_node_state=present: put this host's enrollment token from Web in Ansible Vault (ansible-vault encrypt_string --stdin-name oac_node_token; see the role's README)";

function missing(): string | false {
  if (process.getuid?.() !== 0) return 'needs root (the role checks that its directory is root’s)';
  for (const tool of ['ansible-playbook', 'ansible-vault', 'sha256sum'])
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `needs ${tool}`;
    }
  return false;
}
const skip = missing();

interface Case {
  dir: string;
  token: string;
  /** The fake installer's SHA-256. */
  sha: string;
}

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The fake installer: the first install changes (created /etc/made, /etc/kept unchanged), a
 *  rerun changes nothing; a dry run plans an update of /etc/made and exits 2. It writes only in
 *  the case's directory. */
function makeCase(): Case {
  const dir = mkdtempSync(join(userInfo().homedir, '.oac-ansible-checks-'));
  made.push(dir);
  for (const sub of ['report', 'remote-tmp', 'local-tmp', 'ansible-home'])
    mkdirSync(join(dir, sub));
  const r = join(dir, 'report');
  const installer = [
    '#!/bin/sh',
    '# oac-node reads the token as the line after the clean start consumed the variables.',
    'IFS= read -r token',
    `printf '%s' "$token" | sha256sum | cut -d' ' -f1 > '${r}/token-sha256'`,
    'case " $* " in *" --dry-run "*)',
    `  echo '{"type":"step-plan","step":"unit","action":{"kind":"unchanged","detail":"/etc/kept"}}'`,
    `  echo '{"type":"step-plan","step":"unit","action":{"kind":"update","detail":"/etc/made"}}'`,
    `  echo '{"type":"summary","changed":true,"node_id":null,"version":"1.2.3"}'`,
    '  exit 2;;',
    'esac',
    `if [ -e '${r}/installed' ]; then`,
    `  echo '{"type":"step-done","step":"unit","result":{"outcome":"unchanged","detail":"/etc/made"}}'`,
    `  echo '{"type":"summary","changed":false,"node_id":"n-fake-1","version":"1.2.3"}'`,
    'else',
    `  touch '${r}/installed'`,
    `  echo '{"type":"step-done","step":"unit","result":{"outcome":"unchanged","detail":"/etc/kept"}}'`,
    `  echo '{"type":"step-done","step":"unit","result":{"outcome":"created","detail":"/etc/made"}}'`,
    `  echo '{"type":"summary","changed":true,"node_id":"n-fake-1","version":"1.2.3"}'`,
    'fi',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'installer'), installer, { mode: 0o755 });
  const sha = createHash('sha256').update(installer).digest('hex');
  return { dir, token: `Oac-canary-${randomBytes(16).toString('hex')}`, sha };
}

interface Run {
  status: number | null;
  output: string;
}

/** A command with Ansible's settings pointed at the case's directory. */
function run(c: Case, argv: string[], stdin = ''): Promise<Run & { stdout: string }> {
  writeFileSync(join(c.dir, 'ansible.cfg'), '');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('ANSIBLE_') && v !== undefined) env[k] = v;
  Object.assign(env, {
    ANSIBLE_CONFIG: join(c.dir, 'ansible.cfg'),
    ANSIBLE_HOME: join(c.dir, 'ansible-home'),
    ANSIBLE_REMOTE_TEMP: join(c.dir, 'remote-tmp'),
    ANSIBLE_LOCAL_TEMP: join(c.dir, 'local-tmp'),
    ANSIBLE_ROLES_PATH: ROLES,
    ANSIBLE_NOCOLOR: '1',
    // Nothing written beside the role's action plugin (__pycache__).
    PYTHONDONTWRITEBYTECODE: '1',
  });
  const child = spawn(argv[0] as string, argv.slice(1), { cwd: c.dir, env });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => {
    output += d.toString();
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ status, output, stdout })),
  );
}

interface Options {
  /** The token's line(s) in the vars file: none when undefined. */
  token?: string;
  /** The token vault-encrypted (ansible-vault encrypt_string) instead of in plain text. */
  vault?: boolean;
  /** ansible-playbook's options. */
  args?: string[];
}

/** The role in a play on this machine, then the facts it returned, one line each. */
async function runRole(c: Case, o: Options = {}): Promise<Run> {
  const vars = [
    'oac_node_core_url: https://core.invalid',
    `oac_node_installation_id: ${INSTALLATION_ID}`,
    `oac_node_installer_src: ${join(c.dir, 'installer')}`,
    `oac_node_installer_sha256: ${c.sha}`,
    `oac_node_bootstrap_dir: ${join(c.dir, 'bootstrap')}`,
  ];
  const args = [...(o.args ?? [])];
  if (o.vault === true) {
    // A throwaway vault password, as an operator's vault holds the token.
    writeFileSync(join(c.dir, 'vault-password'), `${randomBytes(12).toString('hex')}\n`, {
      mode: 0o600,
    });
    const encrypted = await run(
      c,
      [
        'ansible-vault',
        'encrypt_string',
        '--vault-password-file',
        'vault-password',
        '--stdin-name',
        'oac_node_token',
      ],
      c.token,
    );
    assert.equal(encrypted.status, 0, encrypted.output);
    assert.match(encrypted.stdout, /^oac_node_token: !vault \|/);
    vars.push(encrypted.stdout.trimEnd());
    args.push('--vault-password-file', 'vault-password');
  } else if (o.token !== undefined) vars.push(o.token);
  writeFileSync(join(c.dir, 'vars.yml'), `${vars.join('\n')}\n`, { mode: 0o600 });
  writeFileSync(
    join(c.dir, 'play.yml'),
    [
      '- name: A sandbox node',
      '  hosts: node',
      '  gather_facts: false',
      '  vars_files: [vars.yml]',
      '  roles: [oac_node]',
      '  post_tasks:',
      '    - name: The facts',
      '      ansible.builtin.debug:',
      // Absent sets none of them.
      `        msg: "id={{ oac_node_id | default('unset') }} version={{ oac_node_version | default('unset') }} changed={{ oac_node_changed | default('unset') }} ({{ oac_node_changed | default('unset') | type_debug }})"`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(c.dir, 'inventory'),
    'node ansible_connection=local ansible_python_interpreter=auto_silent\n',
  );
  return run(c, ['ansible-playbook', '-i', 'inventory', 'play.yml', ...args]);
}

/** A task's part of the output: from its header to the next. */
function section(output: string, task: string): string {
  const start = output.indexOf(`TASK [${task}]`);
  assert.ok(start >= 0, `the task ${task} ran: ${output}`);
  const end = output.indexOf('TASK [', start + 1);
  return output.slice(start, end < 0 ? undefined : end);
}

const changedCount = (output: string) => Number(/node +: ok=\d+ +changed=(\d+)/.exec(output)?.[1]);

const tokenRead = (c: Case) => {
  const path = join(c.dir, 'report', 'token-sha256');
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
};

describe('the role’s checks and what it returns', { skip }, () => {
  test('FLEET-01 SEC-03 issue #39 a vault-encrypted token passes the role’s argument spec, reaches the installer on standard input, and the role returns oac_node_id, oac_node_version and oac_node_changed', async () => {
    const c = makeCase();
    const first = await runRole(c, { vault: true });
    assert.equal(first.status, 0, first.output);
    assert.match(
      first.output,
      /TASK \[oac_node : Validating arguments against arg spec 'main'[^\]]*\][^\n]*\nok: \[node\]/,
    );
    assert.equal(tokenRead(c), createHash('sha256').update(c.token).digest('hex'));
    assert.match(first.output, /"msg": "id=n-fake-1 version=1\.2\.3 changed=True \(bool\)"/);
    // A rerun: the installer changed nothing, and the fact says so.
    const rerun = await runRole(c, { vault: true });
    assert.equal(rerun.status, 0, rerun.output);
    assert.match(rerun.output, /"msg": "id=n-fake-1 version=1\.2\.3 changed=False \(bool\)"/);
    assert.equal(changedCount(rerun.output), 0, rerun.output);
    // In the vault only: no file of the case's holds it in plain text, nor does the output.
    assert.deepEqual(filesHolding(c.dir, [c.token]), []);
    for (const output of [first.output, rerun.output]) assert.ok(!output.includes(c.token));
  });

  for (const [what, token] of [
    ['unset', undefined],
    ['empty', "oac_node_token: ''"],
    ['null', 'oac_node_token:'],
  ] as const)
    test(`FLEET-01 issue #39 a missing token (${what}) fails the host with one line naming oac_node_token, before anything changes`, async () => {
      const c = makeCase();
      const result = await runRole(c, token === undefined ? {} : { token });
      assert.notEqual(result.status, 0, result.output);
      const failed = section(result.output, 'oac_node : Check the token');
      assert.match(failed, /^fatal: \[node\]: FAILED! => \{"changed": false, "msg": "(.*)"\}$/m);
      const msg = /"msg": "(.*)"\}$/m.exec(failed)?.[1];
      // One line, that one requirement alone (not the others the role checks).
      assert.equal(msg, MISSING_TOKEN);
      assert.ok(!existsSync(join(c.dir, 'bootstrap')), 'the installer was never copied');
      assert.equal(tokenRead(c), undefined, 'the installer never ran');
    });

  test('FLEET-01 issue #39 absent needs no token (and sets none of the facts)', async () => {
    // This installation ID is recorded nowhere on this machine: absent has nothing to uninstall.
    const c = makeCase();
    const result = await runRole(c, { args: ['-e', 'oac_node_state=absent'] });
    assert.equal(result.status, 0, result.output);
    assert.match(section(result.output, 'oac_node : Check the token'), /^skipping: \[node\]/m);
    assert.equal(changedCount(result.output), 0, result.output);
    assert.match(result.output, /"msg": "id=unset version=unset changed=unset \(str\)"/);
  });

  test('FLEET-01 issue #39 --diff is Ansible’s own diff of the steps that changed (in check mode, of the plan); without --diff nothing is shown', async () => {
    const c = makeCase();
    const token = `oac_node_token: ${c.token}`;
    const diff = await runRole(c, { token, args: ['--diff'] });
    assert.equal(diff.status, 0, diff.output);
    // The standard rendering (the callback's, as for any module), the changed step alone.
    assert.match(
      section(diff.output, "oac_node : Node's changes (--diff)"),
      /\] \*+\n--- before\n\+\+\+ after\n@@ -0,0 \+1 @@\n\+created \/etc\/made\n\nchanged: \[node\]\n/,
    );
    // Check mode: the dry run's plan, in its words; the step it keeps is left out.
    const check = await runRole(c, { token, args: ['--check', '--diff'] });
    assert.equal(check.status, 0, check.output);
    assert.match(
      section(check.output, "oac_node : Node's changes (--diff)"),
      /\] \*+\n--- before\n\+\+\+ after\n@@ -0,0 \+1 @@\n\+update \/etc\/made\n\nchanged: \[node\]\n/,
    );
    assert.match(check.output, /"msg": "id= version=1\.2\.3 changed=True \(bool\)"/);
    // Without --diff (check mode: the plan has a change to show): ok, no diff, no extra change.
    const plain = await runRole(c, { token, args: ['--check'] });
    assert.equal(plain.status, 0, plain.output);
    const shown = section(plain.output, "oac_node : Node's changes (--diff)");
    assert.match(shown, /^ok: \[node\]$/m);
    assert.doesNotMatch(shown, /^(---|\+\+\+) /m);
    assert.equal(changedCount(plain.output), changedCount(check.output) - 1, plain.output);
    for (const output of [diff.output, check.output, plain.output])
      assert.ok(!output.includes(c.token), 'not in the output');
  });
});
