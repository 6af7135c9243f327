// Issue #27 finding 3 (FLEET-01, SEC-03): the Ansible role's tasks that hold the token must get
// their module to the host on standard input (pipelining). Ansible turns pipelining off for the
// become method su, and then writes the module, with the token in its arguments, to a file under
// its remote temporary directory. The role once refused only the variable ansible_become_method
// spelled `su`: `become_method: su` as a play keyword (never visible as a variable) or
// `-e ansible_become_method=ansible.builtin.su` passed, and the token reached a file.
//
// Debian's real ansible-playbook runs the real role against this machine (connection local, as
// root) with a fake installer: a shell script that, while the task holding the token runs (the
// only moment Ansible's module file exists: it is removed afterwards), records a digest of the
// token it read on standard input, every file under Ansible's temporary directories and every
// process argv or environment that holds the token, and its parent's command line (the module's
// Python: `python3 …/AnsiballZ_command.py` when the module came as a file). Ansible's own
// directories (remote and local temp, ANSIBLE_HOME, log) are the test's; the installer's
// directory is one too. Nothing of the machine's changes: no user, unit or package.
//
// Become runs for real, root to root (ANSIBLE_BECOME_ALLOW_SAME_USER, or Ansible would skip it):
// su is the machine's own (root needs no password); sudo, not installed on every machine that
// runs this tier, is a fake one on PATH that records its argv and runs the command as is.
//
// (`-e ansible_become_method=community.general.su` is not a row: there is no such plugin, and
// Ansible itself fails every task with "Invalid become method" before anything runs.)
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { filesHolding, watchProcesses } from '../e2e/helpers/secret-watch.ts';

const ROLES = fileURLToPath(new URL('../../deploy/ansible/roles', import.meta.url));
const REFUSED = "oac_node: the token would reach a file on the host or Ansible's output";
const INSTALLATION_ID = '3f2c1a9e-6a4b-4c1e-9d2f-0b8a7c6d5e4f';

function missing(): string | false {
  if (process.getuid?.() !== 0) return 'needs root (the role checks that its directory is root’s)';
  for (const tool of ['ansible-playbook', 'su', 'sha256sum', 'grep'])
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `needs ${tool}`;
    }
  try {
    execFileSync('su', ['root', '-c', 'true'], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    return 'needs su from root to root without a password';
  }
  return false;
}
const skip = missing();

interface Case {
  dir: string;
  token: string;
}

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A directory of the test's own: the role's installer directory must be below directories only
 *  root can write, so not below /tmp. root's home is such a place. */
function makeCase(): Case {
  const dir = mkdtempSync(join(userInfo().homedir, '.oac-ansible-become-'));
  made.push(dir);
  for (const sub of ['bin', 'report', 'remote-tmp', 'local-tmp', 'ansible-home', 'controller-only'])
    mkdirSync(join(dir, sub));
  return { dir, token: `Oac-canary-${randomBytes(16).toString('hex')}` };
}

function writeFakes(c: Case): string {
  const r = join(c.dir, 'report');
  // The token only ever on a pipe: grep reads its pattern from standard input (-f -), never
  // from its argv.
  const installer = [
    '#!/bin/sh',
    '# oac-node reads the token as the line after the clean start consumed the variables.',
    'IFS= read -r token',
    `printf '%s' "$token" | sha256sum | cut -d' ' -f1 > '${r}/token-sha256'`,
    `printf '%s\\n' "$token" | grep -rlF -f - '${c.dir}/remote-tmp' '${c.dir}/local-tmp' '${c.dir}/ansible-home' > '${r}/files' 2>/dev/null`,
    `printf '%s\\n' "$token" | grep -lF -f - /proc/[0-9]*/cmdline /proc/[0-9]*/environ > '${r}/processes' 2>/dev/null`,
    `tr '\\0' ' ' < /proc/$PPID/cmdline > '${r}/parent'`,
    `echo '{"type":"step-done","step":"unit","result":{"outcome":"unchanged","detail":"/etc/kept"}}'`,
    `echo '{"type":"step-done","step":"unit","result":{"outcome":"created","detail":"/etc/made"}}'`,
    `echo '{"type":"summary","changed":true,"node_id":"n-fake-1"}'`,
    '',
  ].join('\n');
  writeFileSync(join(c.dir, 'installer'), installer, { mode: 0o755 });
  writeFileSync(
    join(c.dir, 'bin/sudo'),
    [
      '#!/bin/sh',
      `printf '%s\\n' "$*" >> '${r}/sudo-argv'`,
      'while [ $# -gt 0 ]; do case $1 in -u|-p|-g|-C) shift 2;; --) shift; break;; -*) shift;; *) break;; esac; done',
      'exec "$@"',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return createHash('sha256').update(installer).digest('hex');
}

interface Run {
  status: number | null;
  output: string;
  /** Places (argv, environment, Ansible's directories) the watcher saw the token, sampled. */
  watched: string[];
}

interface Options {
  /** The play's keywords, YAML lines. */
  play?: string[];
  /** The host's line in the inventory, after its name. */
  host?: string;
  /** ansible-playbook's options. */
  args?: string[];
  /** Ansible's settings. */
  env?: Record<string, string>;
  /** The installer from this URL instead of the controller's file. */
  installerUrl?: string;
}

const LOCAL = 'ansible_connection=local';

/** The role in a play on this machine, as root. */
async function runRole(c: Case, o: Options = {}): Promise<Run> {
  const sha = writeFakes(c);
  writeFileSync(
    join(c.dir, 'controller-only/vars.yml'),
    [
      'oac_node_core_url: https://core.invalid',
      `oac_node_installation_id: ${INSTALLATION_ID}`,
      ...(o.installerUrl === undefined
        ? [`oac_node_installer_src: ${join(c.dir, 'installer')}`]
        : [`oac_node_installer_url: ${o.installerUrl}`]),
      `oac_node_installer_sha256: ${sha}`,
      `oac_node_bootstrap_dir: ${join(c.dir, 'bootstrap')}`,
      `oac_node_token: ${c.token}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const play = [
    '- name: A sandbox node',
    '  hosts: node',
    '  gather_facts: false',
    '  become: true',
    ...(o.play ?? []).map((l) => `  ${l}`),
    '  vars_files: [controller-only/vars.yml]',
    '  roles: [oac_node]',
    '',
  ];
  writeFileSync(join(c.dir, 'play.yml'), play.join('\n'));
  return playbook(c, 'play.yml', o);
}

async function playbook(c: Case, file: string, o: Options): Promise<Run> {
  writeFileSync(
    join(c.dir, 'inventory'),
    `node ansible_python_interpreter=auto_silent ${o.host ?? LOCAL}\n`,
  );
  writeFileSync(join(c.dir, 'ansible.cfg'), '');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('ANSIBLE_') && v !== undefined) env[k] = v;
  Object.assign(env, {
    PATH: `${join(c.dir, 'bin')}:${process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'}`,
    ANSIBLE_CONFIG: join(c.dir, 'ansible.cfg'),
    ANSIBLE_HOME: join(c.dir, 'ansible-home'),
    ANSIBLE_REMOTE_TEMP: join(c.dir, 'remote-tmp'),
    ANSIBLE_LOCAL_TEMP: join(c.dir, 'local-tmp'),
    ANSIBLE_LOG_PATH: join(c.dir, 'ansible.log'),
    ANSIBLE_ROLES_PATH: ROLES,
    ANSIBLE_NOCOLOR: '1',
    ANSIBLE_BECOME_ALLOW_SAME_USER: 'true',
    // Nothing written beside the role's action plugin (__pycache__).
    PYTHONDONTWRITEBYTECODE: '1',
    ...o.env,
  });
  const watch = watchProcesses(
    new Map([['token', c.token]]),
    ['remote-tmp', 'local-tmp'].map((d) => join(c.dir, d)),
  );
  const child = spawn('ansible-playbook', ['-i', 'inventory', file, ...(o.args ?? [])], {
    cwd: c.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { status, output, watched: watch.stop() };
}

const report = (c: Case, name: string): string | undefined => {
  const path = join(c.dir, 'report', name);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
};

/** Nowhere but the controller's vars: not in a file Ansible or the role wrote (now or while it
 *  ran), not in a process's argv or environment, not in the output or the log. */
function assertTokenNowhere(c: Case, run: Run): void {
  // The controller's vars hold it, as the operator's vault does; no other file of the case's
  // (Ansible's temporary directories and home, its log, the installer's directory, the fakes'
  // reports) does.
  assert.deepEqual(filesHolding(c.dir, [c.token]), [join(c.dir, 'controller-only/vars.yml')]);
  assert.equal(report(c, 'files') ?? '', '', 'no file held the token while the installer ran');
  assert.equal(report(c, 'processes') ?? '', '', 'no argv or environment held the token');
  assert.deepEqual(run.watched, [], 'the sampled argv, environment and Ansible files');
  assert.ok(!run.output.includes(c.token), 'not in the output');
}

/** The run finished, the installer got the token on standard input, and the module holding it
 *  came to Python on standard input too (no AnsiballZ file on its command line). */
function assertInstalledThroughStdin(c: Case, run: Run): void {
  assert.equal(run.status, 0, run.output);
  assert.match(run.output, /TASK \[oac_node : Node installed or rerun\][^\n]*\nchanged: \[node\]/);
  assert.equal(
    report(c, 'token-sha256')?.trim(),
    createHash('sha256').update(c.token).digest('hex'),
    'the installer read the token on standard input',
  );
  const parent = report(c, 'parent') ?? '';
  assert.match(parent, /python/, 'the installer ran under the module’s Python');
  assert.doesNotMatch(parent, /AnsiballZ/, `the module was not a file: ${parent}`);
  assertTokenNowhere(c, run);
}

/** Refused by the role's own check, before anything on the host changed: the installer never
 *  copied, never run. */
function assertRefusedUpFront(c: Case, run: Run): void {
  assert.notEqual(run.status, 0, run.output);
  assert.match(
    run.output,
    new RegExp(
      `TASK \\[oac_node : Check that the token cannot reach a file or the output\\][^\\n]*\\nfatal: \\[node\\]: FAILED! => [^\\n]*${REFUSED}`,
    ),
  );
  assert.ok(!existsSync(join(c.dir, 'bootstrap')), 'the installer was never copied');
  assert.equal(report(c, 'token-sha256'), undefined, 'the installer never ran');
  assertTokenNowhere(c, run);
}

describe('the role and become', { skip }, () => {
  test('FLEET-01 SEC-03 the search finds the token when a module is a file (the control)', async () => {
    // Without pipelining, Ansible writes the module (its stdin argument included) under its
    // remote temporary directory: the fake installer, which runs while that file exists, must
    // see it, or the other tests prove nothing. Afterwards the file is gone.
    const c = makeCase();
    writeFakes(c);
    writeFileSync(
      join(c.dir, 'control.yml'),
      [
        '- name: A module as a file',
        '  hosts: node',
        '  gather_facts: false',
        '  tasks:',
        '    - name: The token on the fake installer’s stdin, pipelining off',
        '      ansible.builtin.command:',
        `        argv: [${join(c.dir, 'installer')}]`,
        `        stdin: ${c.token}`,
        '      no_log: true',
        '      vars:',
        '        ansible_pipelining: false',
        '',
      ].join('\n'),
    );
    const run = await playbook(c, 'control.yml', {});
    assert.equal(run.status, 0, run.output);
    assert.match(
      report(c, 'files') ?? '',
      /\/remote-tmp\/ansible-tmp-[^/]+\/AnsiballZ_command\.py$/m,
    );
    assert.match(report(c, 'parent') ?? '', /AnsiballZ_command\.py/);
    assert.deepEqual(filesHolding(join(c.dir, 'remote-tmp'), [c.token]), [], 'removed after');
  });

  test('FLEET-01 SEC-03 a play keyword `become_method: su` cannot take the token to a file', async () => {
    // A play keyword is no variable: the role cannot see it, so its tasks that hold the token
    // set their own become method (sudo). The role's other tasks still become with su.
    const c = makeCase();
    const run = await runRole(c, { play: ['become_method: su'] });
    assertInstalledThroughStdin(c, run);
    assert.match(
      report(c, 'sudo-argv') ?? '',
      /^-H -S -n +-u root \/bin\/sh -c echo BECOME-SUCCESS-\w+ ; \S*python\S*$/m,
      'the task holding the token became root with sudo, its module on standard input',
    );
  });

  // From ansible-core 2.19 any become plugin without pipelining (community.general.doas) and
  // ssh arguments asking for a terminal turn pipelining off too: only sudo, and no -t.
  for (const [what, args] of [
    [
      'a become method other than sudo',
      ['-e', '{"ansible_become_method": "ansible.builtin.runas", "ansible_become_user": "root"}'],
    ],
    ['ssh arguments asking for a terminal', ['-e', '{"ansible_ssh_extra_args": "-tt"}']],
    [
      'RequestTTY in the common ssh arguments',
      ['-e', '{"ansible_ssh_common_args": "-o RequestTTY=force"}'],
    ],
  ] as const)
    test(`FLEET-01 SEC-03 ${what} is refused before anything changes`, async () => {
      const c = makeCase();
      assertRefusedUpFront(c, await runRole(c, { args: [...args] }));
    });

  test('FLEET-01 DECL-05 a plan path that is not absolute is refused before anything changes', async () => {
    const c = makeCase();
    const run = await runRole(c, { args: ['--check', '-e', 'oac_node_plan_out=node.plan'] });
    assert.notEqual(run.status, 0, run.output);
    assert.match(
      run.output,
      /TASK \[oac_node : Check the role's variables\][^\n]*\nfatal: \[node\]: FAILED! => [^\n]*oac_node_plan_out empty or absolute/,
    );
    assert.ok(!existsSync(join(c.dir, 'bootstrap')), 'the installer was never copied');
    assert.equal(report(c, 'token-sha256'), undefined, 'the installer never ran');
  });

  for (const method of ['ansible.builtin.su', 'ansible.legacy.su'])
    test(`FLEET-01 SEC-03 -e ansible_become_method=${method} is refused before anything changes`, async () => {
      // A variable outranks a task's own keyword: the role must refuse it, whatever its prefix.
      const c = makeCase();
      assertRefusedUpFront(
        c,
        await runRole(c, { args: ['-e', `ansible_become_method=${method}`] }),
      );
    });

  test('FLEET-01 SEC-03 connections are compared without their ansible.builtin or legacy prefix', async () => {
    // A variable shows in ansible_connection as spelled; a keyword (or -c) as its plugin's
    // resolved name: ansible.builtin.local as ansible_collections.ansible.builtin.plugins.
    // connection.local. ssh and local, however spelled, pass; paramiko (no pipelining) does not
    // (not even installed here: the role's check comes first).
    const [keyword, variable, paramiko] = [makeCase(), makeCase(), makeCase()];
    const [keywordRun, variableRun, paramikoRun] = await Promise.all([
      runRole(keyword, { play: ['connection: ansible.builtin.local'], host: '' }),
      runRole(variable, { host: 'ansible_connection=ansible.legacy.local' }),
      runRole(paramiko, { play: ['connection: ansible.builtin.paramiko_ssh'], host: '' }),
    ]);
    assertInstalledThroughStdin(keyword, keywordRun);
    assertInstalledThroughStdin(variable, variableRun);
    assertRefusedUpFront(paramiko, paramikoRun);
  });
});

// One case for three promises, as each role run costs seconds: the .gz URL, the fact, --diff.
test("FLEET-01 issue #25 the role takes the console's oac-node.gz URL (unpacked on the host, checked by the executable's SHA-256, fetched once), returns the fact oac_node_id, and shows with --diff what changed", async () => {
  const c = makeCase();
  let requests = 0;
  let wrongContent = false;
  const server = createServer((req, res) => {
    requests += 1;
    if (req.url !== '/node-install/oac-node.gz') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/gzip' });
    const installer = readFileSync(join(c.dir, 'installer'));
    res.end(
      gzipSync(wrongContent ? Buffer.concat([installer, Buffer.from('# changed\n')]) : installer),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const installerUrl = `http://127.0.0.1:${port}/node-install/oac-node.gz`;
    const post = [
      'post_tasks:',
      '  - name: The node',
      '    ansible.builtin.debug:',
      '      var: oac_node_id',
    ];
    const first = await runRole(c, { installerUrl, play: post, args: ['--diff'] });
    assert.equal(first.status, 0, first.output);
    assert.match(first.output, /"oac_node_id": "n-fake-1"/);
    // --diff: the steps that changed something, as the installer said them; not the others.
    // Ansible's own diff (issue #39), rendered as any module's: `--- before`, `+++ after`.
    const changes = first.output
      .split("TASK [oac_node : Node's changes (--diff)]")[1]
      ?.split('TASK [')[0];
    assert.match(
      changes ?? '',
      /\n--- before\n\+\+\+ after\n@@ -0,0 \+1 @@\n\+created \/etc\/made\n/,
      first.output,
    );
    assert.doesNotMatch(changes ?? '', /\/etc\/kept/);
    assert.equal(requests, 1);
    assert.ok(report(c, 'token-sha256') !== undefined, 'the unpacked installer ran');
    // The line's lock file is shared with it: the role takes the same lock.
    const kept = readdirSync(join(c.dir, 'bootstrap')).filter((n) => n !== 'lock');
    assert.equal(kept.length, 1, `only the installer, named by its checksum: ${kept.join(' ')}`);
    assert.equal(statSync(join(c.dir, 'bootstrap', kept[0] ?? '')).mode & 0o7777, 0o700);
    const again = await runRole(c, { installerUrl });
    assert.equal(again.status, 0, again.output);
    assert.equal(requests, 1, 'a rerun finds the installer in place and downloads nothing');
    assertTokenNowhere(c, again);

    // Another executable behind the URL: refused before it takes the checksum's name, and
    // nothing of it stays (no .gz, no part file, no file named by the checksum).
    rmSync(join(c.dir, 'bootstrap'), { recursive: true });
    rmSync(join(c.dir, 'report', 'token-sha256'));
    wrongContent = true;
    const wrong = await runRole(c, { installerUrl });
    assert.notEqual(wrong.status, 0, wrong.output);
    assert.match(wrong.output, /the unpacked installer does not match oac_node_installer_sha256/);
    assert.deepEqual(
      readdirSync(join(c.dir, 'bootstrap')).filter((n) => n !== 'lock'),
      [],
    );
    assert.equal(report(c, 'token-sha256'), undefined, 'the wrong installer never ran');
  } finally {
    server.close();
  }
});
