// Issue #27.1: the node service, reconnecting with backoff while Core cannot be reached, logs the
// first failure of an outage whole and then at most one line a minute (NODE-02: it keeps trying).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OUTAGE_LOG_INTERVAL_MS, OutageLog } from '../../src/agent/outage-log.ts';
import { RECONNECT } from '../../src/agent/run.ts';
import { backoffDelay } from '../../src/net/retry.ts';

function outage() {
  let now = 1_700_000_000_000;
  const lines: string[] = [];
  const log = new OutageLog(
    (l) => lines.push(l),
    () => now,
  );
  return { log, lines, advance: (ms: number) => (now += ms) };
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
  assert.match(lines.at(-1) ?? '', /Still reconnecting: \d+ attempts since \d{4}-\d\d-\d\dT/);
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

test('NODE-02 a connection ends the outage: the next failure is logged at once, with its reason', () => {
  const { log, lines, advance } = outage();
  log.why('first reason');
  log.retry(1000);
  advance(1000);
  log.over();
  log.why('Connection to Core closed (1006)');
  log.retry(1000);
  assert.deepEqual(lines, [
    'first reason. Reconnecting in 1.0 s',
    'Connection to Core closed (1006). Reconnecting in 1.0 s',
  ]);
  assert.equal(OUTAGE_LOG_INTERVAL_MS, 60_000);
});
