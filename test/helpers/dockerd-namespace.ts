// A private real dockerd in a private mount namespace that a test prepares first (a small tmpfs
// where a disk would be full) and that the installer then joins (`nsenter -m`), so the daemon and
// the installer see the same file systems while this machine's mounts stay as they are: what is
// mounted there goes away with the daemon. As in test/helpers/private-dockerd.ts, the daemon has
// a network namespace of its own (loopback up), no bridge and no iptables changes, its own exec
// root and pid file under a scratch directory, and is stopped only through the handle of the
// child this process started (whose PID is the daemon's, checked against the pid file). Its API
// socket is wherever the test says (a scratch tree's /var/run/docker.sock): a path, which a
// process in any network namespace reaches.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DockerdInNamespace {
  /** The daemon's PID, and so its mount namespace's. */
  pid: number;
  /** `argv` run in the daemon's mount namespace (this process's network and everything else). */
  enter(argv: string[]): string[];
  /** A path of that namespace as this process reaches it (through /proc/<pid>/root). */
  view(path: string): string;
  /** A shell script run in that namespace; throws with its output unless it exits 0. */
  sh(script: string): string;
  docker(args: string[]): { status: number | null; stdout: string; stderr: string };
  stop(): Promise<void>;
}

export interface DockerdInNamespaceOptions {
  /** The API socket's path, on this machine's file systems. */
  socket: string;
  /** Docker's data root (what `docker info` reports as DockerRootDir); default <dir>/data. */
  dataRoot?: string;
  /** Shell commands run in the new mount namespace before the daemon starts (mounts). */
  setup?: string;
}

/** Single-quotes `s` for sh. */
export const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export async function dockerdInNamespace(
  dir: string,
  o: DockerdInNamespaceOptions,
): Promise<DockerdInNamespace> {
  if (spawnSync('which', ['dockerd']).status !== 0)
    throw new Error(
      "dockerd is not installed: run 'bash scripts/setup.sh' (apt-get install docker.io iptables)",
    );
  mkdirSync(dir, { recursive: true });
  const pidfile = join(dir, 'dockerd.pid');
  const host = `unix://${o.socket}`;
  const docker = (args: string[]) => {
    const r = spawnSync('docker', ['-H', host, ...args], { encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const args = [
    ...['--data-root', o.dataRoot ?? join(dir, 'data'), '--exec-root', join(dir, 'exec')],
    ...['--pidfile', pidfile, '-H', host, '--bridge=none', '--iptables=false'],
    '--ip6tables=false',
  ];
  // unshare and sh exec each other without forking: the child's PID is the daemon's.
  const daemon = `exec unshare --net sh -c 'ip link set lo up && exec dockerd "$@"' sh "$@"`;
  const script = o.setup === undefined ? daemon : `${o.setup} && ${daemon}`;
  const log = openSync(join(dir, 'dockerd.log'), 'a');
  const child = spawn(
    'unshare',
    ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', ...args],
    { detached: true, stdio: ['ignore', log, log] },
  );
  closeSync(log);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error('unshare did not start');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;

  /** SIGTERM through the child's own handle (a no-op once it has exited), SIGKILL after 30 s. */
  async function stop(): Promise<void> {
    if (!running()) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, 30_000, true)));
    if (await Promise.race([exited.then(() => false), late])) child.kill('SIGKILL');
    clearTimeout(timer);
    await exited;
  }

  const enter = (argv: string[]) => ['nsenter', '-t', String(pid), '-m', '--', ...argv];
  const sh = (s: string) => {
    const [cmd, ...rest] = enter(['sh', '-c', s]);
    const r = spawnSync(cmd as string, rest, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${s}: exit ${r.status}\n${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  for (let i = 0; i < 150; i += 1) {
    if (!running()) break; // the setup failed, or the daemon did
    if (existsSync(pidfile) && docker(['info', '--format', '{{.ID}}']).status === 0) {
      const recorded = Number(readFileSync(pidfile, 'utf8').trim());
      if (recorded !== pid) {
        await stop();
        throw new Error(`dockerd wrote PID ${recorded}, not ${pid}`);
      }
      return { pid, enter, view: (path) => `/proc/${pid}/root${path}`, sh, docker, stop };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(
    `the private dockerd did not answer within 30 s; see ${join(dir, 'dockerd.log')}:\n${readFileSync(join(dir, 'dockerd.log'), 'utf8').slice(-2000)}`,
  );
}
