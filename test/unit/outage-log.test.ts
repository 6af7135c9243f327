// Issue #27.1: the node service, reconnecting with backoff while Core cannot be reached, logs the
// first failure of an outage whole and then at most one line a minute (NODE-02: it keeps trying),
// also when the connection flaps (opens, and is closed at once) and when the wall clock steps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OUTAGE_LOG_INTERVAL_MS, OutageLog, STABLE_MS } from '../../src/agent/outage-log.ts';
import { RECONNECT } from '../../src/agent/run.ts';
import { backoffDelay } from '../../src/net/retry.ts';

function outage() {
  let now = 1_000_000; // monotonic
  let wall = Date.parse('2026-12-01T00:00:00Z');
  const lines: string[] = [];
  const clock = { now: () => now, wall: () => new Date(wall) };
  const log = new OutageLog((l) => lines.push(l), clock);
  const advance = (ms: number, wallMs = ms) => {
    now += ms;
    wall += wallMs;
  };
  return { log, lines, advance };
}

test('NODE-02 an outage of an hour at the real backoff logs its first failure, then at most once a minute', () => {
  const { log, lines, advance } = outage();
  let attempts = 0;
  for (let elapsed = 0; elapsed < 3_600_000; attempts += 1) {
    log.why('Cannot reach Core at https://core.test: connection refused');
    const delay = backoffDelay(RECONNECT, attempts + 1);
    log.retry(delay);
    advance(delay);
    elapsed += delay;
  }
  assert.match(
    lines[0] ?? '',
    /^Cannot reach Core at .*: connection refused\. Reconnecting in \d+\.\d s$/,
  );
  assert.ok(attempts > 100, `${attempts} attempts`);
  assert.ok(lines.length <= 61, `${lines.length} lines for ${attempts} attempts in an hour`);
  assert.ok(lines.length >= 30, 'still says it is trying');
  assert.match(lines.at(-1) ?? '', /Still reconnecting: \d+ attempts since 2026-12-01T00:00:00/);
});

test('NODE-02 a hot loop of failures (no delay) still logs one line a minute', () => {
  const { log, lines, advance } = outage();
  for (let i = 0; i < 100_000; i += 1) {
    log.retry(0);
    advance(1);
  }
  // 100 s of failures: the first line, and one more at 60 s.
  assert.equal(lines.length, 2);
});

test('NODE-02 a connection that flaps (opened, closed at once) for an hour logs about a line or two a minute', () => {
  const { log, lines, advance } = outage();
  for (let elapsed = 0; elapsed < 3_600_000; elapsed += 1000) {
    log.connected('Connected to Core at https://core.test as node n-1');
    log.why('Connection to Core closed (1006)');
    log.retry(500);
    advance(1000);
  }
  assert.ok(lines.length <= 2 * 61, `${lines.length} lines for 3,600 connections`);
  assert.ok(lines.length >= 60, 'it says what happens');
});

test('NODE-02 a wall clock stepped back a day does not silence the minute line', () => {
  const { log, lines, advance } = outage();
  log.retry(1000);
  advance(60_000, -86_400_000);
  log.retry(1000);
  advance(60_000, 60_000);
  log.retry(1000);
  assert.equal(lines.length, 3);
});

test('NODE-02 a connection ends the outage once it lasted: the next failure is logged at once, with its reason', () => {
  const { log, lines, advance } = outage();
  log.connected('Connected to Core');
  log.why('first reason');
  log.retry(1000);
  advance(1000);
  log.connected('Connected to Core');
  advance(STABLE_MS);
  log.over(); // what run does for a connection that lasted STABLE_MS
  log.why('Connection to Core closed (1006)');
  log.retry(1000);
  assert.deepEqual(lines, [
    'Connected to Core',
    'first reason. Reconnecting in 1.0 s',
    'Connected to Core',
    'Connection to Core closed (1006). Reconnecting in 1.0 s',
  ]);
  assert.equal(OUTAGE_LOG_INTERVAL_MS, 60_000);
});

test('NODE-02 a reason that changes on every attempt still gives a few lines a minute', () => {
  const { log, lines, advance } = outage();
  for (let i = 0; i < 600; i += 1) {
    log.why(`Cannot reach Core: attempt ${i}`);
    log.retry(100);
    advance(100);
  }
  // 60 s: one window of at most four reasons, and the next window's first line.
  assert.ok(lines.length <= 5, `${lines.length} lines`);
});
