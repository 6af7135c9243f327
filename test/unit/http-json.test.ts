// run's requests to Core end on SIGTERM (NODE-01, OPS-03), and listening to run's signal, which
// lives for days, leaves nothing behind on it once a request is over.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Dispatcher } from 'undici';
import { NetworkError, sendJson } from '../../src/net/http-json.ts';

let server: Server;
let base: string;
before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hang') return; // never answers
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('NODE-01 requests made with a long-lived signal leave no listener on it', async () => {
  const run = new AbortController();
  for (let i = 0; i < 5; i += 1) {
    const r = await sendJson({ method: 'GET', url: new URL('/ok', base), signal: run.signal });
    assert.deepEqual(r, { status: 200, body: { ok: true } });
  }
  assert.equal(getEventListeners(run.signal, 'abort').length, 0);
});

test('NODE-01 OPS-03 aborting the signal ends a request Core never answers, at once', async () => {
  const run = new AbortController();
  const started = Date.now();
  const pending = sendJson({ method: 'GET', url: new URL('/hang', base), signal: run.signal });
  setTimeout(() => run.abort(), 100);
  await assert.rejects(pending, (error: unknown) => {
    assert.ok(error instanceof NetworkError);
    assert.equal(error.reason, 'stopped');
    return true;
  });
  assert.ok(Date.now() - started < 5_000, 'not after the 15 s timeout');
  assert.equal(getEventListeners(run.signal, 'abort').length, 0);
});

test('NODE-01 an already stopped signal sends nothing', async () => {
  const run = new AbortController();
  run.abort();
  await assert.rejects(
    sendJson({ method: 'GET', url: new URL('/ok', base), signal: run.signal }),
    (error: unknown) => error instanceof NetworkError && error.reason === 'stopped',
  );
});

/** A dispatcher that takes every request and never answers, never fails, never connects: what
 *  undici's reconnect loop looked like from the request's side (issue #27.1). */
class NeverSettles extends Dispatcher {
  taken = 0;
  override dispatch(): boolean {
    this.taken += 1;
    return true;
  }
}

test('DL-04 OPS-02 the deadline ends a request even when the dispatcher never settles it', async () => {
  const dispatcher = new NeverSettles();
  await assert.rejects(
    sendJson({ method: 'GET', url: new URL('/ok', base), dispatcher, timeoutMs: 200 }),
    (error: unknown) => error instanceof NetworkError && error.reason === 'timed out',
  );
  assert.equal(dispatcher.taken, 1);
});

test('NODE-01 a stop ends a request even when the dispatcher never settles it', async () => {
  const run = new AbortController();
  const pending = sendJson({
    method: 'GET',
    url: new URL('/ok', base),
    dispatcher: new NeverSettles(),
    signal: run.signal,
  });
  setTimeout(() => run.abort(), 50);
  await assert.rejects(
    pending,
    (error: unknown) => error instanceof NetworkError && error.reason === 'stopped',
  );
  assert.equal(getEventListeners(run.signal, 'abort').length, 0);
});
