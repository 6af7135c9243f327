// NODE-04: readiness is checked in a fixed order and only the first failure is reported:
// the provider (Docker daemon, or KVM), Docker's limit support, host capacity against the
// specification, then the installed Runtime files. The detail behind a code stays on the node
// (its log); Core only sees the provider-neutral code.
import { availableParallelism, totalmem } from 'node:os';
import { canOpenReadWrite, isExecutableFile, sha256FileIfExists } from '../host/files.ts';
import { KVM_DEVICE } from '../layout.ts';
import { DockerApi, DockerUnavailable, type DockerInfo } from '../net/docker-api.ts';
import type { DockerAdapter, MicrosandboxAdapter, ProviderFile } from './provider-file.ts';

export const READINESS_CODES = [
  'provider_unavailable',
  'host_unsupported',
  'capacity_insufficient',
  'runtime_image_unavailable',
  'artifacts_unavailable',
] as const;
export type ReadinessCode = (typeof READINESS_CODES)[number];

export interface Readiness {
  code: ReadinessCode | null;
  detail: string; // for the node's log only
}

const READY: Readiness = { code: null, detail: 'ready' };
const MIB = 1024 * 1024;

export async function checkReadiness(file: ProviderFile, kvmPath = KVM_DEVICE): Promise<Readiness> {
  return file.provider === 'docker'
    ? checkDocker(file.adapter, file.specification)
    : checkMicrosandbox(file.adapter, kvmPath);
}

async function checkDocker(
  adapter: DockerAdapter,
  specification: Record<string, unknown>,
): Promise<Readiness> {
  const docker = new DockerApi(adapter.host);
  try {
    let info: DockerInfo;
    try {
      info = await docker.info();
    } catch (error) {
      return fail(
        'provider_unavailable',
        `Docker at ${adapter.host} does not answer: ${reason(error)}`,
      );
    }
    if (!info.CpuCfsQuota || !info.CpuCfsPeriod || !info.MemoryLimit) {
      return fail('host_unsupported', 'Docker on this host does not enforce CPU and memory limits');
    }
    const capacity = checkCapacity(info.NCPU, info.MemTotal, specification);
    if (capacity !== undefined) return capacity;
    let id: string | undefined;
    try {
      id = await docker.imageId(adapter.image);
    } catch (error) {
      return fail('provider_unavailable', `Docker failed the image request: ${reason(error)}`);
    }
    if (id === undefined)
      return fail('runtime_image_unavailable', `Docker has no image ${adapter.image}`);
    return READY;
  } finally {
    await docker.close();
  }
}

async function checkMicrosandbox(
  adapter: MicrosandboxAdapter,
  kvmPath: string,
): Promise<Readiness> {
  if (!(await canOpenReadWrite(kvmPath))) {
    return fail('host_unsupported', `${kvmPath} cannot be opened for reading and writing`);
  }
  const capacity = checkCapacity(availableParallelism(), totalmem(), {
    cpus: adapter.cpus,
    memory_mib: adapter.memory_mib,
  });
  if (capacity !== undefined) return capacity;
  const pinned: Array<[string, string, string]> = [
    ['Runtime', adapter.runtime_path, adapter.runtime_sha256],
    ['firmware', adapter.firmware_path, adapter.firmware_sha256],
  ];
  for (const [what, path, expected] of pinned) {
    const actual = await sha256FileIfExists(path);
    if (actual === undefined)
      return fail('artifacts_unavailable', `The microsandbox ${what} ${path} is missing`);
    if (actual !== expected)
      return fail(
        'artifacts_unavailable',
        `The microsandbox ${what} ${path} fails its SHA-256 check`,
      );
  }
  if (!(await isExecutableFile(adapter.helper_path))) {
    return fail(
      'artifacts_unavailable',
      `The microsandbox helper ${adapter.helper_path} is missing or not executable`,
    );
  }
  return READY;
}

/** One sandbox of the configured size must fit on the host (PRE-06, NODE-04). */
function checkCapacity(
  cpus: number,
  memoryBytes: number,
  specification: Record<string, unknown>,
): Readiness | undefined {
  const needCpus = positiveNumber(specification.cpus);
  const needMib = positiveNumber(specification.memory_mib);
  const haveMib = Math.floor(memoryBytes / MIB);
  if (cpus < needCpus || haveMib < needMib) {
    const detail = `This host has ${cpus} CPUs and ${haveMib} MiB of memory; each sandbox needs ${needCpus} CPUs and ${needMib} MiB`;
    return fail('capacity_insufficient', detail);
  }
  return undefined;
}

function positiveNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function fail(code: ReadinessCode, detail: string): Readiness {
  return { code, detail };
}

function reason(error: unknown): string {
  return error instanceof DockerUnavailable || error instanceof Error
    ? error.message
    : String(error);
}
