// The Docker Engine API over the node's configured unix socket (the provider file's
// `adapter.host`): the same `docker info` the CLI prints, without needing the CLI. Used by the
// readiness checks (NODE-04), which must ask the real daemon on every heartbeat.
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import * as z from 'zod';
import { oacError } from '../messages.ts';

const TIMEOUT_MS = 5_000;

export const dockerInfo = z.object({
  NCPU: z.number().int().nonnegative(),
  MemTotal: z.number().int().nonnegative(),
  MemoryLimit: z.boolean(),
  CpuCfsQuota: z.boolean(),
  CpuCfsPeriod: z.boolean(),
  CgroupVersion: z.string().optional(), // "1" or "2": a string in Docker's JSON
  ServerVersion: z.string().optional(),
  /** Where Docker keeps images (PRE-07 checks its free space). */
  DockerRootDir: z.string().startsWith('/').optional(),
});
export type DockerInfo = z.infer<typeof dockerInfo>;

export class DockerUnavailable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'DockerUnavailable';
  }
}

/** REL-01: the daemon went away in the middle of a request (stopped, crashed, restarted): what
 *  the request was doing, for the operator's one line. */
export class DockerConnectionLost extends DockerUnavailable {
  constructor(
    readonly doing: string,
    readonly reason: string,
  ) {
    super(`${doing}: ${reason}`);
    this.name = 'DockerConnectionLost';
  }
}

/** REL-01: Docker gone in the middle of a request as its one line and hint (docker_stopped);
 *  any other error as it is. */
export function dockerStopped(error: unknown): unknown {
  if (!(error instanceof DockerConnectionLost)) return error;
  return oacError('docker_stopped', { doing: error.doing, reason: error.reason }, { cause: error });
}

/** Docker answered, and said no: its own message, for the operator to read (escaped when shown). */
export class DockerRefused extends Error {
  constructor(
    readonly status: number,
    readonly dockerMessage: string,
  ) {
    super(`Docker answered HTTP ${status}: ${dockerMessage}`);
    this.name = 'DockerRefused';
  }
}

/** Docker's error body is {"message": "..."}; anything else is shown cut short, as it came. */
function dockerMessageOf(text: string): string {
  try {
    const parsed = z.object({ message: z.string() }).safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.message.slice(0, 300);
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 200);
}

export class DockerApi {
  private readonly agent: Agent;

  /** `host` is the provider file's `unix:///path/to/docker.sock`. */
  constructor(host: string) {
    const socketPath = host.replace(/^unix:\/\//, '');
    this.agent = new Agent({ connect: { socketPath, timeout: TIMEOUT_MS } });
  }

  async info(): Promise<DockerInfo> {
    const { status, body } = await this.get('/info');
    if (status !== 200) throw new DockerUnavailable(`docker info answered HTTP ${status}`);
    const parsed = dockerInfo.safeParse(body);
    if (!parsed.success) throw new DockerUnavailable('docker info answered an unexpected shape');
    return parsed.data;
  }

  /** The image's ID, or undefined when Docker does not have it. */
  async imageId(reference: string): Promise<string | undefined> {
    const { status, body } = await this.get(`/images/${encodeURIComponent(reference)}/json`);
    if (status === 404) return undefined;
    if (status !== 200) throw new DockerUnavailable(`docker image inspect answered HTTP ${status}`);
    const parsed = z.object({ Id: z.string() }).safeParse(body);
    if (!parsed.success)
      throw new DockerUnavailable('docker image inspect answered an unexpected shape');
    return parsed.data.Id;
  }

  /** POST /images/load: the same as `docker load -i`, from a stream of the archive. */
  async loadImage(archive: Readable): Promise<void> {
    let response;
    let text: string;
    try {
      response = await request('http://docker/images/load?quiet=1', {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/x-tar' },
        body: archive,
        headersTimeout: 10 * 60_000,
        bodyTimeout: 10 * 60_000,
      });
      // The daemon may go away after its headers too, in the middle of its answer.
      text = await response.body.text();
    } catch (error) {
      throw new DockerConnectionLost('docker load', (error as Error).message);
    }
    // The daemon streams JSON lines and reports a bad archive as {"errorDetail": …} with 200.
    const failure = /"error(?:Detail)?":\s*(\{[^}]*\}|"[^"]*")/.exec(text);
    if (response.statusCode !== 200 || failure !== null) {
      throw new DockerUnavailable(
        `docker load failed: ${failure?.[1] ?? `HTTP ${response.statusCode}`}`,
      );
    }
  }

  async networkExists(name: string): Promise<boolean> {
    const { status } = await this.get(`/networks/${encodeURIComponent(name)}`);
    if (status === 404) return false;
    if (status !== 200)
      throw new DockerUnavailable(`docker network inspect answered HTTP ${status}`);
    return true;
  }

  /** The network's labels, or undefined when Docker has no network of that name. */
  async networkLabels(name: string): Promise<Record<string, string> | undefined> {
    const { status, body } = await this.get(`/networks/${encodeURIComponent(name)}`);
    if (status === 404) return undefined;
    if (status !== 200)
      throw new DockerUnavailable(`docker network inspect answered HTTP ${status}`);
    const parsed = z.object({ Labels: z.record(z.string(), z.string()).nullish() }).safeParse(body);
    return parsed.success ? (parsed.data.Labels ?? {}) : {};
  }

  async createNetwork(name: string, labels: Record<string, string>): Promise<void> {
    let response;
    let text: string;
    try {
      response = await request('http://docker/networks/create', {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          Name: name,
          Driver: 'bridge',
          CheckDuplicate: true,
          Labels: labels,
        }),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      text = await response.body.text();
    } catch (error) {
      throw new DockerConnectionLost('docker network create', (error as Error).message);
    }
    if (response.statusCode !== 201)
      throw new DockerRefused(response.statusCode, dockerMessageOf(text));
  }

  async removeNetwork(name: string): Promise<void> {
    let response;
    try {
      response = await request(`http://docker/networks/${encodeURIComponent(name)}`, {
        method: 'DELETE',
        dispatcher: this.agent,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
    } catch (error) {
      throw new DockerUnavailable(`docker network rm: ${(error as Error).message}`);
    }
    const text = await response.body.text();
    if (response.statusCode !== 204 && response.statusCode !== 404) {
      throw new DockerUnavailable(
        `docker network rm answered HTTP ${response.statusCode}: ${text.slice(0, 200)}`,
      );
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async get(path: string): Promise<{ status: number; body: unknown }> {
    try {
      const response = await request(`http://docker${path}`, {
        dispatcher: this.agent,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      const text = await response.body.text();
      return {
        status: response.statusCode,
        body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined,
      };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new DockerUnavailable(typeof code === 'string' ? code : (error as Error).message);
    }
  }
}
