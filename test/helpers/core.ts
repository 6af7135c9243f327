// Starts the reference Core (fixtures/core) as a real child process on loopback and talks to it
// over real HTTP and WebSocket: the one door every host test uses to reach a Core.
import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request, WebSocket } from 'undici';
import { gzipSync } from 'node:zlib';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown; // parsed JSON, the text when not JSON, null when empty
}

export interface TestCore {
  core_url: string;
  console_url: string;
  release_url: string;
  core_key: string;
  /** With --tls: the pin of Core's CA and its certificate (PEM). */
  core_pin?: string;
  ca_pem?: string;
  pid: number;
  stop(): Promise<void>;
  // Resolves with how the process ended (after stop(), or on its own).
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  coreApi(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

const running = new Set<() => void>();
// A test runner that dies early must not leave Cores behind: kill our own children by PID.
process.once('exit', () => running.forEach((kill) => kill()));

export async function startCore(args: string[] = []): Promise<TestCore> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'fixtures/core/main.ts', '--port', '0', ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const kill = (): void => void child.kill('SIGKILL');
  running.add(kill);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-16_384);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(kill);
      resolve({ code, signal });
    }),
  );

  const line = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const fail = (why: string): void => {
      kill();
      reject(new Error(`reference Core did not start: ${why}\nstderr:\n${stderr}`));
    };
    const timer = setTimeout(
      () => fail(`no JSON line in ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const end = stdout.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        resolve(stdout.slice(0, end));
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      fail(`exited with ${code ?? signal}`);
    });
  });
  const info = JSON.parse(line) as Pick<
    TestCore,
    'core_url' | 'console_url' | 'release_url' | 'core_key' | 'core_pin' | 'ca_pem'
  >;

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(kill, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  const coreApi = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, info.core_url + path, {
      bearer: info.core_key,
      json: body,
      ca: info.ca_pem,
    });
    return { status: r.status, body: r.body };
  };
  return { ...info, pid: child.pid ?? 0, stop, exited, coreApi };
}

export interface CallOptions {
  bearer?: string;
  headers?: Record<string, string>;
  json?: unknown; // sent as JSON
  raw?: string | Buffer; // sent as is
  ca?: string; // the only CA trusted for an https URL (a --tls Core's)
}

// One HTTP request with undici; the whole body is read and parsed.
export async function call(method: string, url: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.bearer !== undefined) headers.authorization = `Bearer ${o.bearer}`;
  let body = o.raw;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['content-type'] = 'application/json';
  }
  // A connection of its own each time, closed after: a kept-alive one may be closed by Core's
  // server while a test blocks the event loop (spawnSync), and undici would send on it (CI saw
  // "other side closed" after a 7 s spawnSync). Loopback connections cost next to nothing.
  const dispatcher = new Agent(o.ca === undefined ? {} : { connect: { ca: o.ca } });
  const r = await request(url, { method: method as 'GET', headers, body, dispatcher });
  const text = await r.body.text();
  await dispatcher.close();
  let parsed: unknown = text === '' ? null : text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: r.statusCode, headers: r.headers, body: parsed };
}

// The error code of a reply, for terse assertions.
export function errorCode(r: { body: unknown }): string | undefined {
  return (r.body as { error?: { code?: string } } | null)?.error?.code;
}

export interface EnrolledNode {
  node_id: string;
  credential: string;
  token: string;
  body: Record<string, unknown>;
}

// Issues a token, reads the configuration with it and enrolls a fresh node.
export async function enrollNode(core: TestCore, capacity: object = {}): Promise<EnrolledNode> {
  const issued = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', capacity);
  const token = (issued.body as { token: string }).token;
  const body = await enrollBody(core, token);
  const r = await call('POST', `${core.core_url}/api/v1/sandbox-node/enroll`, {
    bearer: token,
    json: body,
  });
  if (r.status !== 201) throw new Error(`enroll answered ${r.status}: ${JSON.stringify(r.body)}`);
  return { node_id: body.node_id as string, credential: body.credential as string, token, body };
}

// A valid enrollment body for the current configuration, read with the token.
export async function enrollBody(core: TestCore, token: string): Promise<Record<string, unknown>> {
  const config = await call('GET', `${core.core_url}/api/v1/sandbox-node/configuration`, {
    bearer: token,
  });
  const c = config.body as Record<string, unknown>;
  return {
    node_id: randomUUID(),
    credential: randomBytes(32).toString('base64url'),
    name: 'node-1',
    provider: c.provider,
    backend_fingerprint: `sha256:${'0'.repeat(64)}`,
    deployment_generation: c.generation,
    specification_digest: c.specification_digest,
    core_url: c.core_url,
  };
}

export interface NodeSocket {
  send(message: object): void;
  sendText(text: string): void; // as is, for malformed-message tests
  // The next message from Core (parsed), within timeoutMs.
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

// Opens the node WebSocket with its credential; resolves once open.
export async function connectNode(core: TestCore, node: EnrolledNode): Promise<NodeSocket> {
  const url = `${core.core_url.replace('http', 'ws')}/api/v1/sandbox-node/connect?node_id=${node.node_id}`;
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${node.credential}` } });
  const queue: Array<Record<string, unknown>> = [];
  const waiters: Array<(m: Record<string, unknown>) => void> = [];
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('WebSocket refused')));
  });
  return {
    send: (message) => ws.send(JSON.stringify(message)),
    sendText: (text) => ws.send(text),
    next: (timeoutMs = 3000) => {
      const queued = queue.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no message from Core')), timeoutMs);
        waiters.push((m) => {
          clearTimeout(timer);
          resolve(m);
        });
      });
    },
    closed,
    close: () => ws.close(),
  };
}

// A WebSocket handshake by hand, to read the HTTP status of a refused upgrade (undici's
// WebSocket only reports that it failed).
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

export interface SampleFile {
  name: string;
  kind: string;
  data: Buffer;
  sha256: string;
}

export interface SampleRelease {
  dir: string;
  release: string;
  files: SampleFile[]; // node program, Runtime image, microsandbox runtime
  installer: Buffer; // node-install/oac-node.gz
  cleanup(): Promise<void>;
}

// A small release directory in the layout of docs/release-manifest.md: random bytes of a few
// hundred KiB per file, one of kind runtime-image (which the console redirects by default).
export async function makeReleaseDir(): Promise<SampleRelease> {
  const dir = await mkdtemp(join(tmpdir(), 'oac-core-release-'));
  const release = '0.1.0-0123456789ab';
  const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
  const file = (name: string, kind: string, size: number): SampleFile => {
    const data = randomBytes(size);
    return { name, kind, data, sha256: sha(data) };
  };
  const files = [
    file(`oac-node-${release}-linux-amd64.gz`, 'node-program', 300 * 1024),
    file(`oac-${release}-linux-amd64-runtime.tar.gz`, 'runtime-image', 400 * 1024),
    file(`oac-${release}-microsandbox-runtime.bin`, 'microsandbox-runtime', 200 * 1024),
  ];
  // node-install/ as fixtures/release makes it: the gzip, and SHA256SUMS listing the
  // executable (what the one-line command embeds) and the gzip.
  const executable = randomBytes(100 * 1024);
  const installer = gzipSync(executable, { level: 1 });
  await mkdir(join(dir, 'node-install'));
  await writeFile(join(dir, 'node-install', 'oac-node.gz'), installer);
  await writeFile(
    join(dir, 'node-install', 'SHA256SUMS'),
    `${sha(executable)}  oac-node\n${sha(installer)}  oac-node.gz\n`,
  );
  for (const f of files) await writeFile(join(dir, f.name), f.data);
  const manifest = {
    format: 1,
    release,
    created_at: new Date().toISOString(),
    files: files.map((f) => ({
      name: f.name,
      size: f.data.length,
      sha256: f.sha256,
      kind: f.kind,
      provider: f.kind === 'runtime-image' || f.kind === 'node-program' ? 'any' : 'microsandbox',
      ...(f.kind === 'runtime-image'
        ? {
            image: {
              reference: `oac-runtime:${release}`,
              id: `sha256:${'a'.repeat(64)}`,
              unpacked_size: 1,
            },
          }
        : {}),
    })),
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  await writeFile(join(dir, 'SHA256SUMS'), files.map((f) => `${f.sha256}  ${f.name}\n`).join(''));
  return {
    dir,
    release,
    files,
    installer,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
