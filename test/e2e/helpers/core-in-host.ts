// The reference Core for e2e tests, run on this machine but inside the throwaway host's network
// namespace: the host reaches it at 127.0.0.1 (loopback, so plain http is allowed: SEC-01, as
// for the demo), and the test reaches it at the host's veth address.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Agent, request } from 'undici';
import type { HostNet } from '../harness/host.ts';
import { repoRoot } from '../harness/rootfs.ts';

export interface CoreInHost {
  /** What the host uses: http://127.0.0.1:PORT. */
  coreUrl: string;
  /** What this test process uses: http://<host address>:PORT. */
  outsideUrl: string;
  /** The release server, as the host reaches it: http://127.0.0.1:PORT. */
  releaseUrl: string;
  /** With --tls: the pin of the Core's own CA (TRUST-01). */
  corePin?: string;
  coreApi(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** Ends the Core (SIGTERM) and waits for it. Idempotent: a test may stop it early. */
  stop(): Promise<void>;
}

/** A TypeScript program of this repository, run on this machine inside the host's network
 *  namespace only (its files are this machine's); killed with the test process. */
export function spawnInHostNet(host: HostNet, script: string, args: string[]): ChildProcess {
  const child = spawn(
    'nsenter',
    [
      `--net=/proc/${host.leaderPid}/ns/net`,
      '--',
      process.execPath,
      '--import',
      'tsx',
      script,
      ...args,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  return child;
}

export async function startCoreInHost(host: HostNet, args: string[]): Promise<CoreInHost> {
  const child = spawnInHostNet(host, 'fixtures/core/main.ts', [
    '--host',
    '0.0.0.0',
    '--port',
    '0',
    ...args,
  ]) as ChildProcessWithoutNullStreams;
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the Core did not start: ${stderr}`)), 20_000);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, newline));
      }
    });
  });
  const printed = JSON.parse(line) as {
    core_url: string;
    release_url: string;
    core_key: string;
    core_pin?: string;
    ca_pem?: string;
  };
  const outsideUrl = printed.core_url.replace('127.0.0.1', host.address);
  // With --tls the test, as Web would, trusts the Core's CA; its certificate names 127.0.0.1,
  // and the test reaches the Core at the host's address, so only the name check is skipped here.
  const dispatcher =
    printed.ca_pem === undefined
      ? undefined
      : new Agent({ connect: { ca: printed.ca_pem, checkServerIdentity: () => undefined } });
  let stopped: Promise<void> | undefined;
  return {
    coreUrl: printed.core_url,
    outsideUrl,
    releaseUrl: printed.release_url,
    ...(printed.core_pin === undefined ? {} : { corePin: printed.core_pin }),
    async coreApi(method, path, body) {
      const r = await request(`${outsideUrl}${path}`, {
        method: method as 'GET',
        headers: {
          authorization: `Bearer ${printed.core_key}`,
          'content-type': 'application/json',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        ...(dispatcher === undefined ? {} : { dispatcher }),
      });
      const text = await r.body.text();
      return { status: r.statusCode, body: text === '' ? null : (JSON.parse(text) as unknown) };
    },
    stop() {
      stopped ??= (async () => {
        child.kill('SIGTERM');
        await exited;
        await dispatcher?.close();
      })();
      return stopped;
    },
  };
}
