import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelay, withRetry } from '../../src/net/retry.ts';

const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 300 };

test('issue #2 retries are bounded: a retryable failure is tried `attempts` times, then thrown', async () => {
  const delays: number[] = [];
  let calls = 0;
  await assert.rejects(
    withRetry(
      policy,
      () => true,
      async () => {
        calls += 1;
        throw new Error(`fail ${calls}`);
      },
      async (ms) => void delays.push(ms),
    ),
    /fail 4/,
  );
  assert.equal(calls, 4);
  assert.equal(delays.length, 3);
});

test('issue #2 a non-retryable failure (a 4xx) is never retried', async () => {
  let calls = 0;
  await assert.rejects(
    withRetry(
      policy,
      () => false,
      async () => {
        calls += 1;
        throw new Error('401');
      },
      async () => undefined,
    ),
  );
  assert.equal(calls, 1);
});

test('issue #2 backoff grows exponentially, is capped, and jitters in the upper half', () => {
  assert.equal(
    backoffDelay(policy, 1, () => 0),
    50,
  );
  assert.equal(
    backoffDelay(policy, 1, () => 1),
    100,
  );
  assert.equal(
    backoffDelay(policy, 2, () => 1),
    200,
  );
  assert.equal(
    backoffDelay(policy, 5, () => 1),
    300,
  );
  assert.equal(
    backoffDelay(policy, 5, () => 0),
    150,
  );
});

test('issue #2 a success after failures returns the value', async () => {
  let calls = 0;
  const value = await withRetry(
    policy,
    () => true,
    async () => {
      calls += 1;
      if (calls < 3) throw new Error('transient');
      return 'ok';
    },
    async () => undefined,
  );
  assert.equal(value, 'ok');
  assert.equal(calls, 3);
});
