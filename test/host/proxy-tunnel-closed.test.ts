// Issue #27.1 (DL-04, OPS-02): a proxy that reads CONNECT and closes the socket without a status
// line, as many do when they cannot reach the upstream. undici 7 read that as a dropped socket
// of a running request and connected again at once, forever (about 1,400 CONNECTs a second,
// nothing printed, the request's deadline never firing). Every way the program reaches Core, the
// console or the release server through a proxy must now end with one line naming the proxy,
// after at most a few CONNECTs: Core requests (plain and pinned), downloads, the node's
// WebSocket, and the built executable's command.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createDispatcher } from '../../src/net/dispatcher.ts';
import { downloadFile } from '../../src/net/download.ts';
import { NetworkError, sendJson } from '../../src/net/http-json.ts';
import { openNodeSocket, SocketNotOpened } from '../../src/net/node-socket.ts';
import { requireExecutable } from '../helpers/executable.ts';

const TUNNEL_REFUSED = /the proxy closed the connection instead of opening a tunnel/;
// A request, its retries (at most 4 attempts in the Core client) and the pinned connector's
// discovery handshake: a handful. The hot loop made thousands in the same time.
const FEW = 10;

let proxy: Server;
let proxyUrl: string;
let connects = 0;
const sockets = new Set<Socket>();
let scratch: string;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'oac-tunnel-'));
  proxy = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => {
      connects += 1;
      socket.destroy(); // read CONNECT, answer nothing
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as { port: number };
  proxyUrl = `http://127.0.0.1:${port}`;
});

after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => proxy.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

/** The CONNECTs `work` causes, counted a second after it settled (a loop would go on). */
async function countConnects(work: () => Promise<unknown>): Promise<{ error: unknown; n: number }> {
  const start = connects;
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { error, n: connects - start };
}

const CORE = 'https://core.test:9443';

/** A request to Core through the closing proxy, with these pins: one line, a few CONNECTs. */
async function coreRequestRefused(pins?: ReadonlyMap<string, string>): Promise<void> {
  const dispatcher = createDispatcher({
    env: { https_proxy: proxyUrl },
    ...(pins === undefined ? {} : { pins }),
  });
  try {
    const { error, n } = await countConnects(() =>
      sendJson({ method: 'GET', url: new URL('/api/v1/x', CORE), dispatcher, timeoutMs: 20_000 }),
    );
    assert.ok(error instanceof NetworkError, String(error));
    assert.match(error.message, TUNNEL_REFUSED);
    assert.ok(n >= 1 && n <= FEW, `${n} CONNECTs`);
  } finally {
    await dispatcher.destroy();
  }
}

test('DL-04 OPS-02 a Core request through a proxy that closes the tunnel fails with one line, not a loop', () =>
  coreRequestRefused());

test('TRUST-01 DL-04 a pinned Core through a proxy that closes the tunnel fails the same way', () =>
  coreRequestRefused(new Map([[CORE, `sha256:${'ab'.repeat(32)}`]])));

test('DL-04 DL-02 a download through a proxy that closes the tunnel ends with a line naming the proxy', async () => {
  const dispatcher = createDispatcher({ env: { https_proxy: proxyUrl } });
  try {
    const { error, n } = await countConnects(() =>
      downloadFile({
        url: 'https://release.test:9443/runtime.tar',
        dest: join(scratch, 'runtime.tar'),
        size: 10,
        sha256: '0'.repeat(64),
        dispatcher,
        retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 10 },
      }),
    );
    assert.ok(error instanceof Error, String(error));
    assert.match(error.message, TUNNEL_REFUSED);
    assert.ok(n >= 1 && n <= FEW, `${n} CONNECTs`);
  } finally {
    await dispatcher.destroy();
  }
});

test("NODE-02 the node's connection to Core through a proxy that closes the tunnel fails, so run backs off", async () => {
  const dispatcher = createDispatcher({ env: { https_proxy: proxyUrl } });
  try {
    const { error, n } = await countConnects(() =>
      openNodeSocket({
        coreOrigin: CORE,
        nodeId: 'n-1',
        credential: 'credential-not-sent',
        onMessage: () => undefined,
        dispatcher,
        timeoutMs: 20_000,
      }),
    );
    assert.ok(error instanceof SocketNotOpened, String(error));
    assert.ok(n >= 1 && n <= FEW, `${n} CONNECTs`);
  } finally {
    await dispatcher.destroy();
  }
});

test('REL-01 DL-04 OPS-02 the executable: a command through a proxy that closes the tunnel exits 1 with one line', async () => {
  const start = connects;
  const child = spawn(
    requireExecutable(),
    ['command', '--core-url', CORE, '--installation-id', 'tunnel-test'],
    { env: { https_proxy: proxyUrl }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  child.stdin.end('enrollment-token-of-the-test\n');
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A hang is the failure this test is for: kill it after a minute rather than wait forever.
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(killer);
  assert.equal(status, 1, stderr);
  assert.match(
    stderr,
    /^oac-node: Cannot reach Core at https:\/\/core\.test:9443: the proxy closed the connection instead of opening a tunnel$/m,
  );
  assert.ok(connects - start <= FEW, `${connects - start} CONNECTs`);
});

test('REL-01 DL-04 OPS-02 a proxy that takes CONNECT and never answers: the request ends at its deadline, and the tunnel is given up after the connect timeout, not 300 s', async () => {
  const held = new Set<Socket>();
  let closedAt: number | undefined;
  const silent = createServer((socket) => {
    held.add(socket);
    socket.on('data', () => undefined); // reads CONNECT, answers nothing
    socket.on('close', () => (closedAt ??= Date.now()));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  const dispatcher = createDispatcher({
    env: { https_proxy: `http://127.0.0.1:${port}` },
    connectTimeoutMs: 1500,
  });
  try {
    const started = Date.now();
    await assert.rejects(
      sendJson({ method: 'GET', url: new URL('/api/v1/x', CORE), dispatcher, timeoutMs: 500 }),
      (error: unknown) => error instanceof NetworkError && error.reason === 'timed out',
    );
    // The tunnel's socket is closed by this side once the connect timeout passes.
    const deadline = Date.now() + 10_000;
    while (closedAt === undefined && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(closedAt !== undefined, 'the CONNECT was never given up');
    assert.ok(closedAt - started < 8000, `given up after ${closedAt - started} ms`);
  } finally {
    await dispatcher.destroy();
    for (const s of held) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});
