// Sends readiness to Core at start and on every heartbeat (NODE-04), re-reading the provider
// file each time: a file that no longer matches what was approved at registration gets no work
// until it is restored (NODE-05), and a fix shows on the next report.
import type { NodeSocket } from '../net/node-socket.ts';
import type { RegisteredIdentity } from '../node/identity-store.ts';
import { loadProviderFile } from '../node/load-provider-file.ts';
import { providerFileDigest } from '../node/provider-file.ts';
import { checkReadiness, type Readiness } from '../node/readiness.ts';
import { loadServing } from '../node/serving.ts';
import '../built-fault.ts';

export class ReadinessReporter {
  private inFlight = false;
  private lastLine: string | undefined;

  constructor(
    private readonly configPath: string,
    private readonly stateDir: string,
    private readonly identity: RegisteredIdentity,
    private readonly socket: NodeSocket,
    private readonly log: (line: string) => void,
  ) {}

  async report(): Promise<void> {
    if (this.inFlight) return; // a slow check (Docker hanging) must not pile up
    this.inFlight = true;
    try {
      const readiness = await this.check();
      this.socket.send({
        type: 'readiness',
        provider_ready: readiness.code === null,
        code: readiness.code,
      });
      const line =
        readiness.code === null
          ? 'Readiness: ready'
          : `Readiness: ${readiness.code} (${readiness.detail})`;
      if (line !== this.lastLine) this.log(line); // log changes, not every heartbeat
      this.lastLine = line;
    } finally {
      this.inFlight = false;
    }
  }

  private async check(): Promise<Readiness> {
    if (typeof OAC_BUILT_FAULT === 'string' && OAC_BUILT_FAULT === 'never-ready')
      return { code: 'provider_unavailable', detail: 'this test build is never ready (--fault)' };
    let file;
    try {
      file = await loadProviderFile(this.configPath);
    } catch (error) {
      return {
        code: 'artifacts_unavailable',
        detail: (error as Error).message.split('\n').join('; '),
      };
    }
    // The file of the generation the node serves: the registration's, or one it prepared.
    const serving = await loadServing(this.stateDir, this.identity);
    if (providerFileDigest(file) !== serving.provider_file_digest) {
      const detail = `the provider file ${this.configPath} differs from the one approved for generation ${serving.generation}; restore it to take work`;
      return { code: 'artifacts_unavailable', detail };
    }
    return checkReadiness(file);
  }
}
