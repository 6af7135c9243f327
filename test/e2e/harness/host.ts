// A throwaway Debian 12 host for e2e tests (docs/e2e-hosts.md, docs/e2e-hosts.md):
// systemd-nspawn boots the cached rootfs (scripts/e2e-rootfs.sh) with real systemd as PID 1 and
// a real Docker engine, on a fresh overlay and a fresh /var/lib/docker, with a veth pair whose
// host-side address a test binds its servers to. Nothing of it outlives the test process:
//   - the overlay is mounted in a private mount namespace (gone when the host is),
//   - systemd-nspawn runs as PID 1 of a private PID namespace under `unshare --kill-child`,
//     started through `setpriv --pdeathsig KILL`: when the test process dies, however it dies,
//     the kernel kills the whole host (a SIGKILLed nspawn alone would leave the container's
//     systemd running),
//   - stop() and an exit handler remove the scratch dir, veth, cgroups and nspawn's runtime
//     files; `bash scripts/e2e-rootfs.sh clean` removes what a killed run left.
import { spawn, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  childrenOf,
  delay,
  formatProcessId,
  isAlive,
  killRecorded,
  processId,
  processStat,
  sleepSync,
  type ProcessId,
} from './processes.ts';
import {
  ensureRootfs,
  MACHINE_PREFIX,
  MAX_INDEX,
  repoRoot,
  rootfsScript,
  scratchRoot,
  type Suite,
} from './rootfs.ts';
import { parseSnapshot, snapshotScript, type HostSnapshot } from './snapshot.ts';
import { jsonEventProblems, schemaProblem } from '../../helpers/json-contract.ts';

const ROOT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const USER_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/games'; // Debian's ENV_PATH
const DEFAULT_BOOT_TIMEOUT_MS = 90_000;
const DEFAULT_EXEC_TIMEOUT_MS = 300_000;
const POWEROFF_TIMEOUT_MS = 30_000;
const launchScript = fileURLToPath(new URL('launch.sh', import.meta.url));

export interface Bind {
  /** A path on this machine, mounted read-only. */
  source: string;
  /** Where it appears inside: under /opt/ (/tmp inside is a fresh tmpfs at boot). */
  target: string;
}

export interface BootOptions {
  /** The Debian release to boot; default bookworm (Debian 12). */
  suite?: Suite;
  binds?: Bind[];
  /** Until systemd reports running/degraded and `docker info` answers; default 90 s. */
  bootTimeoutMs?: number;
  /** More systemd-nspawn options, e.g. `--bind=/dev/kvm` with `--property=DeviceAllow=…`. */
  nspawnArgs?: string[];
  /** The size of the host's own disk, its overlay's writable layer (a tmpfs size, `400m`);
   *  default: this machine's disk under the scratch dir. A host with a size keeps that layer
   *  in its private mount namespace: `dir`/upper stays empty as this machine sees it. */
  upperSize?: string;
  /** A directory stacked read-only over the rootfs: what an earlier host changed, kept by its
   *  freeze() (harness/installed.ts: a host booted from a finished install). Root's own: the
   *  callers pass directories of root's private caches, never a path someone else chose. */
  layer?: string;
  /** Copied into the host's /var/lib/docker before it boots (that host's, kept by freeze()). */
  dockerSeed?: string;
  /** Called once the host's network namespace exists and its veth is up, while it boots (the
   *  Core of a host booted from an install starts there, so that the node finds it at once);
   *  awaited before bootHost resolves. */
  whenNetworked?: (net: HostNet) => Promise<unknown>;
  /** Leave the host running after stop() and after the test process ends, for debugging;
   *  default: OAC_E2E_KEEP=1. Remove it later with `bash scripts/e2e-rootfs.sh clean`. */
  keep?: boolean;
}

/** What a process needs to join a host's network: its PID 1 and its address. */
export interface HostNet {
  readonly leaderPid: number;
  readonly address: string;
}

export interface ExecOptions {
  /** A user of the host, by name; default root. Switched with setpriv (no PAM session). */
  user?: string;
  /** Standard input; default empty. */
  stdin?: string | Buffer;
  /** Added to the clean environment (PATH, HOME, USER, LOGNAME, SHELL). */
  env?: Record<string, string>;
  /** Killed inside by `timeout` after this long (status 124 or 137); default 300 s. */
  timeoutMs?: number;
  /** Working directory inside; default the user's home. */
  cwd?: string;
}

export interface ExecResult {
  /** Exit status; null when the process on this machine ended by a signal. */
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface E2eHost {
  /** Machine name, also the scratch dir's and the cgroups' name: `oac-e2e-<index>`. */
  readonly name: string;
  /** This machine's end of the veth pair: bind servers the host must reach here. */
  readonly hostAddress: string;
  /** The host's end (interface host0 inside). */
  readonly address: string;
  /** Host-side PIDs: systemd-nspawn, and the host's PID 1 (systemd) as this machine sees it. */
  readonly nspawnPid: number;
  readonly leaderPid: number;
  /** Scratch dir: upper/ (every file the host changed), docker/, nspawn.log (the console). */
  readonly dir: string;
  /** What `systemctl is-system-running` said when the boot finished (degraded: see
   *  `systemctl --failed` inside). */
  readonly bootState: 'running' | 'degraded';
  /** Runs argv inside (never through a shell on this machine); never throws for a status. */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /** `sh -c SCRIPT` inside. */
  sh(script: string, options?: ExecOptions): Promise<ExecResult>;
  /** `sh -c SCRIPT` inside; its stdout, or an error with status, stdout and stderr. */
  shOk(script: string, options?: ExecOptions): Promise<string>;
  /** The state issue #5 compares (snapshot.ts; compare with diffSnapshots). */
  snapshot(): Promise<HostSnapshot>;
  /** Powers the host off and removes every trace of it (unless kept). Idempotent. */
  stop(): Promise<void>;
  /** Powers the host off cleanly and moves what it changed to `dest` (upper/: its files, a layer
   *  for BootOptions.layer; docker/: its /var/lib/docker, a dockerSeed), then removes the rest.
   *  Fails if the host did not power off by itself (a killed host's files are no layer). */
  freeze(dest: string): Promise<void>;
}

interface Live {
  name: string;
  dir: string;
  keep: boolean;
  launcher?: ProcessId;
  nspawn?: ProcessId;
  leader?: ProcessId;
}

const live = new Set<Live>();
// A test process that ends without stop() (a failed before(), an exception) must not leave a
// host behind: the pdeathsig chain kills it anyway; this also removes its files right away.
process.once('exit', () => {
  for (const host of live) if (!host.keep) destroySync(host);
});

let swept = false;

/** Boots a fresh host; resolves once systemd is running (or degraded) and Docker answers. */
export async function bootHost(options: BootOptions = {}): Promise<E2eHost> {
  const rootfs = await ensureRootfs(options.suite);
  requireTools();
  if (!swept) {
    // Leftovers of killed runs (not of kept hosts, not of running test processes).
    spawnSync('bash', [rootfsScript, 'clean', '--stale'], { stdio: 'ignore' });
    swept = true;
  }
  const keep = options.keep ?? process.env.OAC_E2E_KEEP === '1';
  const binds = options.binds ?? [];
  for (const bind of binds) {
    if (!/^\/opt\/[^:,]+$/.test(bind.target) || bind.target.includes('..')) {
      throw new Error(`bind target must be a plain path under /opt/: '${bind.target}'`);
    }
    if (!existsSync(bind.source) || bind.source.includes(':')) {
      throw new Error(`bind source must exist and have no ':': '${bind.source}'`);
    }
  }

  for (const [what, path] of [
    ['layer', options.layer],
    ['dockerSeed', options.dockerSeed],
  ] as const) {
    // overlayfs splits lowerdir at ':' and its options at ','.
    if (path !== undefined && (!existsSync(path) || /[:,]/.test(path)))
      throw new Error(`${what} must exist and have no ':' or ',': '${path}'`);
  }
  const lower = options.layer === undefined ? rootfs : `${options.layer}:${rootfs}`;

  const { index, name, dir } = allocate();
  const host: Live = { name, dir, keep };
  live.add(host);
  const third = index >> 6;
  const fourth = (index & 63) * 4;
  const hostAddress = `10.231.${third}.${fourth + 1}`;
  const address = `10.231.${third}.${fourth + 2}`;
  const log = join(dir, 'nspawn.log');

  try {
    for (const sub of ['upper', 'work', 'root']) mkdirSync(join(dir, sub), { mode: 0o755 });
    mkdirSync(join(dir, 'docker'), { mode: 0o710 });
    // A real copy: dockerd writes its files in place, and the seed serves every boot of a run.
    if (options.dockerSeed !== undefined)
      mustRun(['cp', '-a', '--preserve=xattr', `${options.dockerSeed}/.`, join(dir, 'docker')]);
    if (keep) writeFileSync(join(dir, 'keep'), '');

    const nspawnArgs = [
      ...['-D', join(dir, 'root'), `--machine=${name}`, '--boot'],
      ...['--register=no', '--keep-unit', '--console=passive', '--capability=all'],
      '--network-veth',
      `--bind=${join(dir, 'docker')}:/var/lib/docker`,
      ...binds.map((b) => `--bind-ro=${b.source}:${b.target}`),
      ...(options.nspawnArgs ?? []),
    ];
    // launch.sh: own cgroups, the overlay, then nspawn as PID 1 of the new PID namespace.
    const unshare = [
      ...['unshare', '--mount', '--propagation', 'private', '--pid', '--fork', '--kill-child'],
      ...['--mount-proc', 'sh', launchScript, name, lower, dir, ...nspawnArgs],
    ];
    const argv = keep ? unshare : ['setpriv', '--pdeathsig', 'KILL', ...unshare];
    const out = openSync(log, 'a');
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: dir,
      detached: true, // own session: a terminal's ^C reaches the test, not the host
      stdio: ['ignore', out, out],
      env: {
        PATH: ROOT_PATH,
        SYSTEMD_NSPAWN_API_VFS_WRITABLE: '1',
        SYSTEMD_SECCOMP: '0',
        SYSTEMD_NSPAWN_LOCK: '0', // no lock file per overlay under /run/systemd/nspawn/locks
        ...(options.upperSize === undefined ? {} : { OAC_E2E_UPPER_SIZE: options.upperSize }),
      },
    });
    closeSync(out);
    if (keep) child.unref();
    let ended: string | undefined;
    const exited = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        ended = `systemd-nspawn ended (${code ?? signal})`;
        resolve();
      }),
    );
    if (child.pid === undefined) throw new Error('could not spawn unshare');
    host.launcher = record(dir, 'launcher', child.pid);

    const deadline = Date.now() + (options.bootTimeoutMs ?? DEFAULT_BOOT_TIMEOUT_MS);
    const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) =>
      waitFor(what, deadline, probe, () => ended);
    const nspawnPid = await until('systemd-nspawn to start', () =>
      childrenOf(child.pid as number).find((p) => processStat(p)?.comm === 'systemd-nspawn'),
    );
    host.nspawn = record(dir, 'nspawn', nspawnPid);
    const leaderPid = await until("the host's systemd to start", () =>
      childrenOf(nspawnPid).find((p) => processStat(p)?.comm === 'systemd'),
    );
    host.leader = record(dir, 'leader', leaderPid);

    const veth = `ve-${name}`;
    await until(`veth ${veth}`, () => (existsSync(`/sys/class/net/${veth}`) ? true : undefined));
    mustRun(['ip', 'addr', 'add', `${hostAddress}/30`, 'dev', veth]);
    mustRun(['ip', 'link', 'set', 'dev', veth, 'up']);
    // No default route inside: the host reaches this machine's end of the veth, nothing more.
    const inHostNet = ['nsenter', '-t', String(leaderPid), '-n', 'ip'];
    mustRun([...inHostNet, 'addr', 'add', `${address}/30`, 'dev', 'host0']);
    mustRun([...inHostNet, 'link', 'set', 'dev', 'host0', 'up']);

    // Its own failure is the caller's to report once the boot is over (or failed).
    const networked = options.whenNetworked?.({ leaderPid, address }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const freezable = options.upperSize === undefined;
    const base = { name, dir, hostAddress, address, nspawnPid, leaderPid, host, exited, freezable };
    const probe = makeHost({ ...base, bootState: 'running' });
    const bootState = await until('systemd to finish booting', async () => {
      const r = await probe.exec(['systemctl', 'is-system-running'], { timeoutMs: 10_000 });
      const state = r.stdout.trim();
      if (state === 'running' || state === 'degraded') return state as 'running' | 'degraded';
      if (state === 'stopping' || state === 'maintenance') {
        throw new Error(`the host's systemd is ${state}`);
      }
      return undefined;
    });
    await until('docker info to answer', async () => {
      const r = await probe.exec(['docker', 'info', '--format', '{{.ServerVersion}}'], {
        timeoutMs: 10_000,
      });
      return r.status === 0 ? true : undefined;
    });
    const early = await networked;
    if (early !== undefined) throw early;
    return makeHost({ ...base, bootState });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const tail = readTail(log);
    if (keep) live.delete(host);
    else destroySync(host);
    throw new Error(`e2e host ${name} did not boot: ${why}\n--- ${log} (tail)\n${tail}`, {
      cause: error,
    });
  }
}

function makeHost(h: {
  name: string;
  dir: string;
  hostAddress: string;
  address: string;
  nspawnPid: number;
  leaderPid: number;
  host: Live;
  exited: Promise<void>;
  freezable: boolean;
  bootState: 'running' | 'degraded';
}): E2eHost {
  let stopped: Promise<void> | undefined;

  async function exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    if (argv.length === 0) throw new Error('exec needs a command');
    if (stopped !== undefined) throw new Error(`e2e host ${h.name} is stopped`);
    const user = options.user ?? 'root';
    let account = { uid: 0, gid: 0, home: '/root', shell: '/bin/bash', homeExists: true };
    if (user !== 'root') {
      const lookup =
        'getent passwd "$1" || exit 2; h=$(getent passwd "$1" | cut -d: -f6); [ -d "$h" ]; echo $?';
      const r = await run(
        h.leaderPid,
        ['sh', '-c', lookup, 'sh', user],
        [`PATH=${ROOT_PATH}`],
        '/',
      );
      const [line = '', dirStatus] = r.stdout.trim().split('\n');
      const fields = line.split(':');
      if (r.status !== 0 || fields.length < 7) {
        throw new Error(`e2e host ${h.name} has no user '${user}' (getent: ${r.status})`);
      }
      account = {
        uid: Number(fields[2]),
        gid: Number(fields[3]),
        home: fields[5] as string,
        shell: fields[6] as string,
        homeExists: dirStatus === '0',
      };
    }
    const env = [
      `PATH=${user === 'root' ? ROOT_PATH : USER_PATH}`,
      `HOME=${account.home}`,
      `USER=${user}`,
      `LOGNAME=${user}`,
      `SHELL=${account.shell}`,
      ...Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`),
    ];
    const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    const inner = [
      ...(user === 'root'
        ? []
        : ['setpriv', `--reuid=${account.uid}`, `--regid=${account.gid}`, '--init-groups']),
      ...['timeout', '-k', '5', `${Math.max(1, Math.ceil(timeoutMs / 1000))}s`],
      ...argv,
    ];
    const cwd = options.cwd ?? (account.homeExists ? account.home : '/');
    const result = await run(h.leaderPid, inner, env, cwd, options.stdin, timeoutMs + 15_000);
    // Issue #25 item 3: every `--json` answer an e2e test sees keeps the published contract.
    if (argv.includes('--json')) checkJsonContract(result.stdout, argv.join(' '));
    return result;
  }

  const sh = (script: string, options?: ExecOptions): Promise<ExecResult> =>
    exec(['sh', '-c', script], options);

  async function shOk(script: string, options?: ExecOptions): Promise<string> {
    const r = await sh(script, options);
    if (r.status !== 0) {
      throw new Error(
        `in e2e host ${h.name}${options?.user ? ` as ${options.user}` : ''}: sh -c ` +
          `${JSON.stringify(script.length > 300 ? `${script.slice(0, 300)}…` : script)} ` +
          `exited ${r.status}\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`,
      );
    }
    return r.stdout;
  }

  async function snapshot(): Promise<HostSnapshot> {
    return parseSnapshot(await shOk(snapshotScript()));
  }

  async function stopOnce(): Promise<void> {
    if (h.host.keep) {
      live.delete(h.host);
      process.stderr.write(
        `e2e host ${h.name} kept (OAC_E2E_KEEP=1). Enter it:\n` +
          `  nsenter -t ${h.leaderPid} -a env -i PATH=${ROOT_PATH} HOME=/root TERM=xterm bash -l\n` +
          `  files it changed: ${h.dir}/upper, console: ${h.dir}/nspawn.log\n` +
          `  remove it: bash scripts/e2e-rootfs.sh clean\n`,
      );
      return;
    }
    await powerOff();
    destroySync(h.host);
  }

  /** A clean poweroff (Docker stops its containers, units stop); true once the host is off,
   *  false when it had to be killed after POWEROFF_TIMEOUT_MS. */
  async function powerOff(): Promise<boolean> {
    await run(
      h.leaderPid,
      ['systemctl', 'poweroff'],
      [`PATH=${ROOT_PATH}`],
      '/',
      undefined,
      10_000,
    );
    let timer: NodeJS.Timeout | undefined;
    const off = await Promise.race([
      h.exited.then(() => true),
      new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(false), POWEROFF_TIMEOUT_MS)),
      ),
    ]);
    clearTimeout(timer);
    if (!off) process.stderr.write(`e2e host ${h.name}: no poweroff in 30 s, killing it\n`);
    return off;
  }

  async function freezeOnce(dest: string): Promise<void> {
    if (!h.freezable || h.host.keep) throw new Error(`e2e host ${h.name} cannot be frozen`);
    try {
      if (!(await powerOff())) throw new Error(`e2e host ${h.name} did not power off`);
      for (const part of ['upper', 'docker']) moveDir(join(h.dir, part), join(dest, part));
    } finally {
      destroySync(h.host);
    }
  }

  return {
    name: h.name,
    hostAddress: h.hostAddress,
    address: h.address,
    nspawnPid: h.nspawnPid,
    leaderPid: h.leaderPid,
    dir: h.dir,
    bootState: h.bootState,
    exec,
    sh,
    shOk,
    snapshot,
    stop: () => (stopped ??= stopOnce()),
    freeze(dest) {
      if (stopped !== undefined) return Promise.reject(new Error(`e2e host ${h.name} is stopped`));
      return (stopped = freezeOnce(dest));
    },
  };
}

/** nsenter into every namespace of the host's PID 1, then `env -i -C CWD ENV... ARGV`. */
function run(
  leaderPid: number,
  argv: string[],
  env: string[],
  cwd: string,
  stdin?: string | Buffer,
  killAfterMs = 60_000,
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'nsenter',
      ['-t', String(leaderPid), '-a', 'env', '-i', '-C', cwd, ...env, ...argv],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: ROOT_PATH } },
    );
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => stdout.push(b));
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    // The command's own `timeout` ends it inside; this only guards against a wedged nsenter.
    const guard = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('error', (error) => {
      clearTimeout(guard);
      reject(error);
    });
    child.once('close', (status) => {
      clearTimeout(guard);
      resolve({
        status,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    child.stdin.on('error', () => {}); // a command that does not read its stdin
    child.stdin.end(stdin ?? '');
  });
}

/** Takes the first free `oac-e2e-<index>`: creating its scratch dir is the lock. */
function allocate(): { index: number; name: string; dir: string } {
  mkdirSync(scratchRoot, { recursive: true, mode: 0o755 });
  const start = randomInt(MAX_INDEX);
  for (let k = 0; k < MAX_INDEX; k += 1) {
    const index = (start + k) % MAX_INDEX;
    const name = `${MACHINE_PREFIX}${index}`;
    // A veth of that name is someone's leftover (a host still running): leave it to `clean`.
    if (existsSync(`/sys/class/net/ve-${name}`)) continue;
    const dir = join(scratchRoot, name);
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    record(dir, 'owner', process.pid);
    return { index, name, dir };
  }
  throw new Error(
    `no free e2e host name under ${scratchRoot}: run 'bash scripts/e2e-rootfs.sh clean'`,
  );
}

function record(dir: string, what: string, pid: number): ProcessId {
  const id = processId(pid);
  if (id === undefined) throw new Error(`${what} (PID ${pid}) ended at once`);
  writeFileSync(join(dir, `${what}.pid`), formatProcessId(id));
  return id;
}

/** Kills the host (by the PIDs it started, checked by start time) and removes its traces. */
function destroySync(host: Live): void {
  live.delete(host);
  for (const id of [host.launcher, host.nspawn, host.leader]) killRecorded(id);
  for (let i = 0; i < 100 && [host.launcher, host.nspawn, host.leader].some(isAlive); i += 1) {
    sleepSync(50);
  }
  spawnSync('ip', ['link', 'del', `ve-${host.name}`], { stdio: 'ignore' });
  rmSync(`/run/systemd/nspawn/propagate/${host.name}`, { recursive: true, force: true });
  // launch.sh listed the cgroups it made; the host's Docker may have made some inside them.
  let cgroups: string[] = [];
  try {
    cgroups = readFileSync(join(host.dir, 'cgroups'), 'utf8').split('\n');
  } catch {
    // the launcher never ran
  }
  for (const path of cgroups) {
    if (path.startsWith('/sys/fs/cgroup/') && path.endsWith(`/oac-e2e/${host.name}`)) {
      removeCgroupTree(path);
    }
  }
  try {
    rmSync(host.dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    process.stderr.write(`e2e host ${host.name}: could not remove ${host.dir}: ${String(error)}\n`);
  }
}

function removeCgroupTree(path: string): void {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) if (entry.isDirectory()) removeCgroupTree(join(path, entry.name));
  for (let i = 0; i < 20; i += 1) {
    try {
      rmdirSync(path);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY') return; // not ours to force
      sleepSync(50); // processes still leaving
    }
  }
}

async function waitFor<T>(
  what: string,
  deadline: number,
  probe: () => T | undefined | Promise<T | undefined>,
  failed: () => string | undefined,
): Promise<T> {
  for (;;) {
    const why = failed();
    if (why !== undefined) throw new Error(`${why} while waiting for ${what}`);
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}

/** Renames `from` to `to`; across file systems, copies (every attribute) and removes. */
function moveDir(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // --preserve=xattr: an overlay's opaque dirs are xattrs, and cp -a alone drops one it
    // cannot copy without a word (the layer would show the rootfs's files there again).
    mustRun(['cp', '-a', '--preserve=xattr', from, to]);
    rmSync(from, { recursive: true, force: true });
  }
}

function mustRun(argv: string[]): void {
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr || r.error}`);
}

function readTail(path: string): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-40).join('\n');
  } catch {
    return '(no log)';
  }
}

let toolsChecked = false;

function requireTools(): void {
  if (toolsChecked) return;
  const missing = ['systemd-nspawn', 'nsenter', 'setpriv', 'unshare', 'ip'].filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0,
  );
  if (missing.length > 0) {
    throw new Error(
      `e2e hosts need ${missing.join(', ')}: run 'bash scripts/setup.sh' in ${repoRoot}`,
    );
  }
  toolsChecked = true;
}

/** FLEET-02 (issue #25 item 3): a `--json` run's output against docs/schema/: status's one
 *  document, or events, one per line. Thrown, so the test that ran it fails with the reason. */
function checkJsonContract(stdout: string, command: string): void {
  const text = stdout.trim();
  if (text === '') return;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    document = undefined; // more than one line: events
  }
  const isDocument = typeof document === 'object' && document !== null && !('type' in document);
  // The one-document commands, each its own schema; status's otherwise.
  const named = ['diagnose', 'version', 'bundle'].find((c) => command.split(' ').includes(c));
  const problems = isDocument
    ? [schemaProblem(`${named ?? 'status'}.json`, document)].filter((p) => p !== undefined)
    : jsonEventProblems(stdout);
  if (problems.length > 0)
    throw new Error(`${command}: --json output breaks docs/schema/:\n${problems.join('\n')}`);
}
