// host.json (issue #40, docs/support.md): what the installer's preflight looks at
// (installer/preflight.ts), as this host has it now: the OS, kernel, cgroup version, CPUs,
// memory, /dev/kvm, systemd's and Docker's versions, and the free space where the node writes
// (support/disk-space.ts). Each fact that cannot be had says why; the others are still there.
import { cpus, release, totalmem } from 'node:os';
import type { Host } from '../src/host/host.ts';
import { DOCKER_SOCKET, NODE_HOME, type Layout } from '../src/layout.ts';
import { DockerApi } from '../src/net/docker-api.ts';
import { readJournal } from '../records/journal.ts';
import { diskSpace, writtenDirs } from './disk-space.ts';
import { fact, live, small } from './facts.ts';

export async function hostFacts(host: Host, names: Layout) {
  const kvm = await host.lstat('/dev/kvm');
  const docker = await fact(() => dockerFacts(host));
  const inputs = (await readJournal(host, names.id).catch(() => undefined))?.inputs;
  const dockerRoot = 'root_dir' in docker ? docker.root_dir : docker;
  return {
    os_release: await fact(async () => (await small(host, '/etc/os-release')).toString()),
    kernel: release(),
    cgroup: await fact(() => cgroupVersion(host)),
    cpus: cpus().length,
    memory_bytes: totalmem(),
    kvm:
      kvm === undefined
        ? null
        : {
            character_device: kvm.isCharacterDevice(),
            mode: (kvm.mode & 0o777).toString(8),
            gid: kvm.gid,
          },
    node_home: NODE_HOME,
    systemd: await fact(async () => systemdVersion(await live(host, 'systemctl', ['--version']))),
    docker,
    disk: await diskSpace(host, writtenDirs(names, inputs, dockerRoot)),
  };
}

/** 2 when the unified hierarchy's root file is there, 1 when only the v1 hierarchy is. */
async function cgroupVersion(host: Host): Promise<1 | 2> {
  if ((await host.lstat('/sys/fs/cgroup/cgroup.controllers')) !== undefined) return 2;
  if ((await host.lstat('/sys/fs/cgroup')) !== undefined) return 1;
  throw new Error('/sys/fs/cgroup: absent');
}

/** The version systemd names on the first line of `systemctl --version` ("systemd 252 (…)"). */
export function systemdVersion(text: string): { version: number; line: string } {
  const line = text.split('\n')[0]?.trim() ?? '';
  const found = /^systemd (\d{1,5})\b/.exec(line);
  if (found?.[1] === undefined) throw new Error(`systemctl --version said ${line.slice(0, 80)}`);
  return { version: Number(found[1]), line };
}

/** Docker's version and data root from its Engine API, through the socket the preflight asks
 *  (installer/preflight.ts dockerInfo: `docker info`, which holds the server's version). */
async function dockerFacts(host: Host): Promise<{ version: string | null; root_dir: string }> {
  const docker = new DockerApi(`unix://${host.path(DOCKER_SOCKET)}`);
  try {
    const info = await docker.info();
    // As the preflight takes it when Docker does not say (installer/preflight.ts).
    return {
      version: info.ServerVersion ?? null,
      root_dir: info.DockerRootDir ?? '/var/lib/docker',
    };
  } catch (error) {
    throw new Error(`Docker did not answer at ${DOCKER_SOCKET}: ${(error as Error).message}`);
  } finally {
    await docker.close();
  }
}
