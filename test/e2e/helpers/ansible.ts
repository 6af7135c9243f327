// Ansible against throwaway hosts (issue #15, FLEET-01): a controller directory on this machine
// (ansible.cfg, inventory, vault-encrypted tokens, an ssh key) and ansible-playbook run with it.
// Ansible reaches each host over ssh at the host's veth address; its own files (control
// sockets, local temp) stay in the controller directory, never in this machine's /root.
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { E2eHost } from '../harness/host.ts';
import { repoRoot } from '../harness/rootfs.ts';

export interface FleetHost {
  name: string;
  host: E2eHost;
  vars: Record<string, string | boolean>;
  token: string;
}

export interface PlaybookRun {
  status: number | null;
  output: string;
  /** PLAY RECAP per host: ok, changed, unreachable, failed. */
  recap: Map<string, { ok: number; changed: number; unreachable: number; failed: number }>;
}

export interface Controller {
  dir: string;
  /** Writes the inventory, each host's token encrypted with ansible-vault. */
  inventory(hosts: FleetHost[], groupVars: Record<string, string>): Promise<void>;
  /** ansible-playbook of site.yml, or of `file` (upgrade.yml). */
  playbook(args: string[], file?: string): Promise<PlaybookRun>;
  /** Lets Ansible log in as root with the controller's key, and starts sshd. */
  admit(host: E2eHost): Promise<void>;
  remove(): Promise<void>;
}

export const SITE_PLAYBOOK = join(repoRoot, 'deploy/ansible/site.yml');
/** UPG-01, UPG-02: the same role, one host at a time, stopping at the first failure. */
export const UPGRADE_PLAYBOOK = join(repoRoot, 'deploy/ansible/upgrade.yml');

export async function controller(): Promise<Controller> {
  const dir = await mkdtemp(join(tmpdir(), 'oac-ansible-'));
  const env = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: dir,
    LANG: 'C.UTF-8',
    ANSIBLE_CONFIG: join(dir, 'ansible.cfg'),
  };
  await writeFile(join(dir, 'vault-password'), 'oac-e2e-vault-password\n', { mode: 0o600 });
  await writeFile(
    join(dir, 'ansible.cfg'),
    [
      '[defaults]',
      `roles_path = ${join(repoRoot, 'deploy/ansible/roles')}`,
      `inventory = ${join(dir, 'inventory')}`,
      `vault_password_file = ${join(dir, 'vault-password')}`,
      `log_path = ${join(dir, 'ansible.log')}`,
      `local_tmp = ${join(dir, 'local-tmp')}`,
      'host_key_checking = False',
      'forks = 10',
      'nocolor = True',
      'interpreter_python = /usr/bin/python3',
      '[ssh_connection]',
      `control_path_dir = ${join(dir, 'cp')}`,
      `ssh_args = -o ControlMaster=auto -o ControlPersist=120s -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o IdentitiesOnly=yes -i ${join(dir, 'id')}`,
      '',
    ].join('\n'),
  );
  await run(
    ['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'oac-e2e', '-f', join(dir, 'id')],
    env,
  );
  const publicKey = await readFile(join(dir, 'id.pub'), 'utf8');

  return {
    dir,
    async inventory(hosts, groupVars) {
      const hostVarsDir = join(dir, 'inventory', 'host_vars');
      await mkdir(hostVarsDir, { recursive: true });
      const lines = ['oac_nodes:', '  hosts:'];
      for (const h of hosts) {
        lines.push(`    ${h.name}:`);
        for (const [k, v] of Object.entries({ ansible_host: h.host.address, ...h.vars }))
          lines.push(`      ${k}: ${JSON.stringify(v)}`);
      }
      lines.push('  vars:', '    ansible_user: root');
      for (const [k, v] of Object.entries(groupVars)) lines.push(`    ${k}: ${JSON.stringify(v)}`);
      await writeFile(join(dir, 'inventory', 'hosts.yml'), `${lines.join('\n')}\n`);
      // The token goes to ansible-vault on stdin, as an operator's would from a password manager.
      // One ansible-vault per host, all at once (each is half a second of Python start-up).
      await Promise.all(
        hosts.map(async (h) => {
          const encrypted = await run(
            ['ansible-vault', 'encrypt_string', '--stdin-name', 'oac_node_token'],
            env,
            h.token,
          );
          if (encrypted.status !== 0) throw new Error(`ansible-vault: ${encrypted.output}`);
          // stdout alone: a warning on stderr would break the YAML.
          await writeFile(join(hostVarsDir, `${h.name}.yml`), encrypted.stdout);
        }),
      );
    },
    async playbook(args, file = SITE_PLAYBOOK) {
      const result = await run(['ansible-playbook', file, ...args], env);
      return { ...result, recap: parseRecap(result.output) };
    },
    async admit(host) {
      await host.exec(
        ['sh', '-c', 'umask 077; mkdir -p /root/.ssh && cat > /root/.ssh/authorized_keys'],
        {
          stdin: publicKey,
        },
      );
      await host.shOk('systemctl start ssh.service');
    },
    async remove() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function parseRecap(output: string): PlaybookRun['recap'] {
  const recap: PlaybookRun['recap'] = new Map();
  const re = /^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)/gm;
  for (const m of output.matchAll(re))
    recap.set(m[1] as string, {
      ok: Number(m[2]),
      changed: Number(m[3]),
      unreachable: Number(m[4]),
      failed: Number(m[5]),
    });
  return recap;
}

function run(
  argv: string[],
  env: Record<string, string>,
  stdin = '',
): Promise<{ status: number | null; output: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { env, cwd: repoRoot });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output, stdout }));
    child.stdin.end(stdin);
  });
}
