// Proxies and name tricks for the DL-04 tests, all on loopback (no test ever reaches another
// address):
// - a recording proxy (node:http) that speaks CONNECT and forwarded GET, checks
//   Proxy-Authorization (any bytes, so credentials with `@` and `:` can be tested: tinyproxy's
//   BasicAuth accepts only [-a-z0-9._]), records what it was asked, and maps test host names such
//   as `release.test` to 127.0.0.1 itself; any name it does not know is refused, never resolved;
// - tinyproxy from Debian, started with its own config, log and pid file and stopped by its PID;
// - a TLS front (node:https) with a throwaway certificate made by openssl, in front of a local
//   http server (the reference Core), so https can be tested through CONNECT;
// - a lookup function that resolves test names to 127.0.0.1 for direct connections, no DNS.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestOptions,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  connect,
  createServer as createNetServer,
  type LookupFunction,
  type Socket,
} from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ProxyRecord {
  method: string; // CONNECT, GET, …
  target: string; // `host:port` for CONNECT, the absolute URL otherwise
  auth: string | null; // the decoded `user:password` of Proxy-Authorization, null without one
}

export interface RecordingProxy {
  url: string; // http://127.0.0.1:PORT
  port: number;
  records: ProxyRecord[];
  close(): Promise<void>;
}

export interface RecordingProxyOptions {
  /** Test names this proxy sends to 127.0.0.1 (besides loopback addresses themselves). */
  names: string[];
  /** When set, requests without exactly these credentials get 407. */
  credentials?: { username: string; password: string };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost)$/i;

export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const names = new Set(options.names.map((n) => n.toLowerCase()));
  const records: ProxyRecord[] = [];
  const sockets = new Set<Socket>();
  const mapHost = (host: string): string | undefined =>
    names.has(host.toLowerCase()) || LOOPBACK.test(host) ? '127.0.0.1' : undefined;
  const allowed = (headers: IncomingHttpHeaders, method: string, target: string): boolean => {
    const header = headers['proxy-authorization'];
    const auth =
      typeof header === 'string' && header.startsWith('Basic ')
        ? Buffer.from(header.slice(6), 'base64').toString('utf8')
        : null;
    records.push({ method, target, auth });
    const c = options.credentials;
    return c === undefined || auth === `${c.username}:${c.password}`;
  };

  const server: Server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const target = req.url ?? '';
    if (!allowed(req.headers, req.method ?? '', target)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': '0' });
      res.end();
      return;
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const host = mapHost(url.hostname);
    if (host === undefined || url.protocol !== 'http:') {
      res.writeHead(502, { 'content-length': '0' }).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    forward(req, res, {
      host,
      port: Number(url.port || 80),
      method: req.method,
      path: url.pathname + url.search,
      headers,
    });
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (!allowed(req.headers, 'CONNECT', target)) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const match = /^([^:]+):(\d+)$/.exec(target);
    const host = match?.[1] === undefined ? undefined : mapHost(match[1]);
    if (host === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(Number(match?.[2]), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    records,
    close: () => closeServer(server, sockets),
  };
}

export interface TlsFront {
  port: number;
  close(): Promise<void>;
}

/** An https server for `name` that passes every request to http://127.0.0.1:`targetPort`. */
export async function startTlsFront(cert: TestCertificate, targetPort: number): Promise<TlsFront> {
  const sockets = new Set<Socket>();
  const server = createHttpsServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    forward(req, res, {
      host: '127.0.0.1',
      port: targetPort,
      method: req.method,
      path: req.url,
      headers: req.headers,
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return { port, close: () => closeServer(server, sockets) };
}

export interface TestCertificate {
  key: string;
  cert: string; // self-signed for `name`; also the CA a client must trust
}

/** A throwaway self-signed certificate for `name` (and `more` names; openssl from Debian). */
export async function makeTestCertificate(
  name: string,
  more: string[] = [],
): Promise<TestCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'oac-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=${[name, ...more].map((n) => `DNS:${n}`).join(',')}`,
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'pipe' },
    );
    return { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Resolves `names` to 127.0.0.1 for direct connections; anything else fails, without DNS. */
export function loopbackLookup(names: string[]): LookupFunction {
  const known = new Set(names.map((n) => n.toLowerCase()));
  return ((
    hostname: string,
    options: { all?: boolean },
    callback: (...args: unknown[]) => void,
  ) => {
    if (!known.has(hostname.toLowerCase())) {
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: 'ENOTFOUND',
      });
      callback(error);
      return;
    }
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  }) as LookupFunction;
}

export interface Tinyproxy {
  url: string; // http://127.0.0.1:PORT, without credentials
  port: number;
  pid: number;
  log(): Promise<string>;
  stop(): Promise<void>;
}

export interface TinyproxyOptions {
  /** BasicAuth user and password ([-a-z0-9._] only: tinyproxy refuses anything else). */
  credentials?: { username: string; password: string };
  /** Send every request on to this proxy (the recording proxy, which knows the test names). */
  upstreamPort: number;
}

/** tinyproxy in the foreground with its own files; stopped by its PID only. */
export async function startTinyproxy(options: TinyproxyOptions): Promise<Tinyproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'oac-tinyproxy-'));
  const port = await freePort();
  const logFile = join(dir, 'tinyproxy.log');
  const lines = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Timeout 60',
    `LogFile "${logFile}"`,
    'LogLevel Info',
    `PidFile "${join(dir, 'tinyproxy.pid')}"`,
    'MaxClients 20',
    'Allow 127.0.0.1',
    'DisableViaHeader Yes',
    `Upstream http 127.0.0.1:${options.upstreamPort}`,
  ];
  if (options.credentials) {
    lines.push(`BasicAuth ${options.credentials.username} ${options.credentials.password}`);
  }
  const config = join(dir, 'tinyproxy.conf');
  await writeFile(config, `${lines.join('\n')}\n`);
  const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (e) =>
      reject(new Error(`cannot start tinyproxy (${e.message}): run scripts/setup.sh`)),
    ),
  );
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  try {
    await Promise.race([waitForPort(port, 5000), spawnError]);
  } catch (error) {
    kill();
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    log: () => readFile(logFile, 'utf8').catch(() => ''),
    stop: async () => {
      process.off('exit', kill);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(kill, 3000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

function closeServer(
  server: Server | ReturnType<typeof createHttpsServer>,
  sockets: Set<Socket>,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const socket of sockets) socket.destroy();
  return closed;
}

/** Sends `req` on to `target` and the answer back; either side closing ends the other. */
function forward(req: IncomingMessage, res: ServerResponse, target: RequestOptions): void {
  const upstream = httpRequest(target, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', () => res.destroy());
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}
