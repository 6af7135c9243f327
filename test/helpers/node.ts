// Helpers for tests of the node program: a provider file copied from a real configuration read,
// a private token file, and the real executable run as a child process.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import type { TestCore } from './core.ts';
import { requireExecutable } from './executable.ts';

export interface NodeFiles {
  dir: string;
  config: string;
  stateDir: string;
  tokenFile: string;
  token: string;
  configuration: Record<string, unknown>;
}

export async function issueToken(core: TestCore, body: object = {}): Promise<string> {
  const r = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return (r.body as { token: string }).token;
}

/** Reads the configuration with a fresh token, as the guide's manual registration does. */
export async function nodeFiles(
  core: TestCore,
  dir: string,
  adapter: Record<string, unknown>,
  given?: string,
): Promise<NodeFiles> {
  const token = given ?? (await issueToken(core));
  const response = await fetchJson(`${core.core_url}/api/v1/sandbox-node/configuration`, token);
  const { provider, installation_id, core_url, generation, specification } = response;
  const config = join(dir, 'provider.json');
  writeFileSync(
    config,
    JSON.stringify(
      { provider, installation_id, core_url, generation, specification, adapter },
      null,
      2,
    ),
  );
  const tokenFile = join(dir, 'enrollment-token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  return { dir, config, stateDir: join(dir, 'state'), tokenFile, token, configuration: response };
}

async function fetchJson(url: string, token: string): Promise<Record<string, unknown>> {
  const r = await request(url, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(r.statusCode, 200);
  return (await r.body.json()) as Record<string, unknown>;
}

export function dockerAdapter(host: string, image: string): Record<string, unknown> {
  return {
    host,
    image,
    network: 'oac-node-test',
    extra_hosts: [],
    seccomp_file: '/etc/oac-node/seccomp.json',
    nested_sandbox: false,
  };
}

export interface RegisteredNode extends NodeFiles {
  nodeId: string;
  credential: string;
}

/** A directory with a provider file and token, registered with the real executable. */
export async function registerNode(
  core: TestCore,
  dir: string,
  adapter: Record<string, unknown>,
  name: string,
  token?: string,
): Promise<RegisteredNode> {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const files = await nodeFiles(core, dir, adapter, token);
  // Not spawnSync: the test process may itself carry the traffic (the forwarder).
  const r = await runExeAsync(registerArgs(core, files, name));
  assert.equal(r.status, 0, r.stderr);
  const identity = JSON.parse(readFileSync(join(files.stateDir, 'identity.json'), 'utf8')) as {
    node_id: string;
    credential: string;
  };
  return { ...files, nodeId: identity.node_id, credential: identity.credential };
}

export function registerArgs(core: TestCore, files: NodeFiles, name = 'worker-1'): string[] {
  return [
    'register',
    ...['--config', files.config, '--state-dir', files.stateDir, '--core-url', core.core_url],
    ...['--name', name, '--enrollment-token-file', files.tokenFile],
  ];
}

export function runExe(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; uid?: number; gid?: number } = {},
) {
  const r = spawnSync(requireExecutable(), args, {
    encoding: 'utf8',
    env: options.env ?? {},
    uid: options.uid,
    gid: options.gid,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** runExe without blocking the event loop: needed when this process also serves the traffic. */
export function runExeAsync(
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(requireExecutable(), args, { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) =>
    child.once('close', (status) => resolve({ status, stdout, stderr })),
  );
}

/** A running `oac-node run`, with its output collected for later scans. */
export interface RunningNode {
  child: ChildProcess;
  output: () => string;
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
  exited: Promise<number | null>;
  /** SIGTERM; rejects (after SIGKILL) when run has not exited within timeoutMs. */
  stop: (timeoutMs?: number) => Promise<number | null>;
}

export function startRun(
  files: Pick<NodeFiles, 'config' | 'stateDir'>,
  extra: string[] = [],
  spawnOptions: { uid?: number; gid?: number; executable?: string } = {},
): RunningNode {
  const args = [
    'run',
    '--config',
    files.config,
    '--state-dir',
    files.stateDir,
    '--heartbeat-seconds',
    '0.5',
    ...extra,
  ];
  const { executable, ...ids } = spawnOptions;
  const child = spawn(executable ?? requireExecutable(), args, {
    env: {},
    stdio: ['ignore', 'pipe', 'pipe'],
    ...ids,
  });
  let output = '';
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    waiters.forEach((check) => check());
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // 'error' (the executable could not be started) ends it too, or stop() would wait forever.
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (error) => {
      output += `\nspawn failed: ${error.message}`;
      resolve(null);
    });
  });
  const waitFor = (pattern: RegExp, timeoutMs = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output}`));
      }, timeoutMs);
      function check() {
        if (!pattern.test(output)) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      }
      waiters.add(check);
      check();
    });
  // SIGTERM must stop run within seconds (systemd's stop); one that does not is killed, so the
  // test fails with run's output instead of hanging the tier (session 9's CI hung here).
  const stop = async (timeoutMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'late')));
    const first = await Promise.race([exited, late]).finally(() => clearTimeout(timer));
    if (first !== 'late') return first;
    child.kill('SIGKILL');
    await exited;
    throw new Error(`run did not stop within ${timeoutMs} ms of SIGTERM; its output:\n${output}`);
  };
  return { child, output: () => output, waitFor, exited, stop };
}

export interface NodeView {
  node_id: string;
  name: string;
  connected: boolean;
  provider_ready: boolean;
  readiness_code: string | null;
  managed: boolean | null;
  rollout: { state: string; diagnostic: string | null };
  generation: number;
}

export async function listNodes(core: TestCore): Promise<NodeView[]> {
  const r = await core.coreApi('GET', '/core/v1/sandbox/nodes');
  assert.equal(r.status, 200);
  return (r.body as { nodes: NodeView[] }).nodes;
}

/** Polls Core's node list until `predicate` holds for the node. */
export async function waitForNode(
  core: TestCore,
  nodeId: string,
  predicate: (n: NodeView) => boolean,
  timeoutMs = 15_000,
): Promise<NodeView> {
  const deadline = Date.now() + timeoutMs;
  let last: NodeView | undefined;
  while (Date.now() < deadline) {
    last = (await listNodes(core)).find((n) => n.node_id === nodeId);
    if (last !== undefined && predicate(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`node ${nodeId} never matched; last seen: ${JSON.stringify(last)}`);
}
