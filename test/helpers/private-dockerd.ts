// A private, real dockerd for tests that must stop and start Docker (NODE-04 readiness):
// its own socket, data root and exec root under a scratch directory, no bridge and no iptables
// changes, so it neither disturbs the machine's Docker (if any) nor the machine's network.
// It runs in a network namespace of its own: the bridges of the networks a node creates
// (oac-node-<id>) live and die with it. In the machine's namespace they outlived the scratch
// directory that held the daemon's record of them, and after 31 of them Docker's default
// address pools were used up for every later test and run (the CI failure of session 9).
// Stopped only by the PID it wrote.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PrivateDockerd {
  /** For the provider file's adapter.host. */
  host: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  docker(args: string[]): { status: number | null; stdout: string; stderr: string };
}

export interface PrivateDockerdOptions {
  /**
   * false: start dockerd in a private mount namespace without the cgroup-v1 memory controller,
   * so that it really lacks memory limit support (`docker info` says MemoryLimit false). The
   * machine's own mounts are untouched.
   */
  memoryLimits?: boolean;
}

export function privateDockerd(dir: string, options: PrivateDockerdOptions = {}): PrivateDockerd {
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, 'docker.sock');
  const pidfile = join(dir, 'dockerd.pid');
  const host = `unix://${socket}`;
  const docker = (args: string[]) => {
    const r = spawnSync('docker', ['-H', host, ...args], { encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const answers = () => docker(['info', '--format', '{{.ID}}']).status === 0;

  async function start(): Promise<void> {
    if (spawnSync('which', ['dockerd']).status !== 0) {
      throw new Error(
        "dockerd is not installed: run 'bash scripts/setup.sh' (apt-get install docker.io iptables)",
      );
    }
    const log = openSync(join(dir, 'dockerd.log'), 'a');
    const args = [
      ...['--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'), '--pidfile', pidfile],
      ...['-H', host, '--bridge=none', '--iptables=false', '--ip6tables=false'],
    ];
    const child = spawn('unshare', inOwnNamespaces(args, options.memoryLimits !== false), {
      detached: true,
      stdio: ['ignore', log, log],
    });
    child.unref();
    for (let i = 0; i < 150; i += 1) {
      if (answers()) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(
      `the private dockerd did not answer within 30 s; see ${join(dir, 'dockerd.log')}`,
    );
  }

  async function stop(): Promise<void> {
    if (!existsSync(pidfile)) return;
    const pid = Number(readFileSync(pidfile, 'utf8').trim());
    if (!(pid > 1)) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    for (let i = 0; i < 150; i += 1) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    process.kill(pid, 'SIGKILL');
  }

  return { host, start, stop, docker };
}

/** Builds a small real release (fake executable, real Runtime image) and returns its image archive. */
export async function runtimeImageArchive(
  dir: string,
): Promise<{ archive: string; reference: string; id: string }> {
  const { writeFakeDist } = await import('../../fixtures/release/fake-dist.ts');
  const { buildRelease } = await import('../../fixtures/release/build.ts');
  const dist = await writeFakeDist(join(dir, 'dist'), 'readiness');
  const built = await buildRelease({ ...dist, outDir: join(dir, 'release'), version: '0.0.0' });
  const file = built.manifest.files.find((f) => f.kind === 'runtime-image');
  if (file === undefined || file.image === undefined)
    throw new Error('the release has no runtime image');
  return {
    archive: join(built.outDir, file.name),
    reference: file.image.reference,
    id: file.image.id,
  };
}

/**
 * unshare's argv for dockerd in a network namespace of its own (loopback up) and a private mount
 * namespace; without memory limits, the cgroup-v1 memory controller is unmounted there first,
 * so that the daemon really lacks memory limit support (`docker info` says MemoryLimit false).
 * The machine's own mounts and network are untouched.
 */
function inOwnNamespaces(dockerdArgs: string[], memoryLimits: boolean): string[] {
  const memory = '/sys/fs/cgroup/memory';
  if (!memoryLimits && spawnSync('mountpoint', ['-q', memory]).status !== 0) {
    throw new Error(
      `${memory} is not a cgroup-v1 mount here: cannot start a dockerd without memory limits`,
    );
  }
  const script = [
    'ip link set lo up',
    ...(memoryLimits ? [] : [`umount ${memory}`]),
    'exec dockerd "$@"',
  ].join(' && ');
  return ['--net', '--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', ...dockerdArgs];
}
