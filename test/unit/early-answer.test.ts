// Issue #41 (DECL-07, OPS-03): work started early is taken only for the key it was started for;
// otherwise, or when nobody takes it, it is stopped and waited for; its failure reaches the one
// who takes it, and nobody else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startEarly, takeFor } from '../../src/installation/early-answer.ts';

/** Work that ends after `ms` with `value` (or throws `fail`), or stops when its signal aborts. */
function work(ms: number, value: string, fail?: string) {
  const seen = { started: 0, stopped: 0, ended: 0 };
  const run = (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      seen.started += 1;
      const timer = setTimeout(() => {
        seen.ended += 1;
        if (fail !== undefined) reject(new Error(fail));
        else resolve(value);
      }, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        seen.stopped += 1;
        reject(signal.reason as Error);
      });
    });
  return { seen, run };
}

test('DECL-07 the same key takes the early answer', async () => {
  const w = work(20, 'plan');
  const early = startEarly('k1', undefined, w.run);
  assert.deepEqual(await takeFor(early, 'k1'), { value: 'plan' });
  assert.deepEqual(w.seen, { started: 1, stopped: 0, ended: 1 });
  assert.equal(await takeFor(undefined, 'k1'), undefined, 'nothing started: the asker works');
});

test('DECL-07 OPS-03 another key stops the early work and waits for it; its answer is never used', async () => {
  const w = work(10_000, 'stale');
  const early = startEarly('k1', undefined, w.run);
  assert.equal(await takeFor(early, 'k2'), undefined);
  assert.deepEqual(w.seen, { started: 1, stopped: 1, ended: 0 });
});

test('OPS-03 work nobody took is stopped by cancel, which waits until it ended; the run signal stops it too', async () => {
  const w = work(10_000, 'unused');
  await startEarly('k', undefined, w.run).cancel();
  assert.deepEqual(w.seen, { started: 1, stopped: 1, ended: 0 });
  await startEarly('k', undefined, work(0, 'done').run).cancel(); // already ended: no harm
  const run = new AbortController();
  const v = work(10_000, 'x');
  const early = startEarly('k', run.signal, v.run);
  run.abort(new Error('interrupted'));
  await assert.rejects(takeFor(early, 'k'), /interrupted/);
  assert.equal(v.seen.stopped, 1);
});

test('DECL-07 a failure is kept until taken: no unhandled rejection, and the taker gets it', async () => {
  const unhandled: unknown[] = [];
  const note = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', note);
  try {
    const early = startEarly('k', undefined, work(5, '', 'probe broke').run);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.deepEqual(unhandled, []);
    await assert.rejects(takeFor(early, 'k'), /probe broke/);
    const thrown = startEarly('k', undefined, () => {
      throw new Error('at once');
    });
    await assert.rejects(takeFor(thrown, 'k'), /at once/);
  } finally {
    process.off('unhandledRejection', note);
  }
});
