// OPS-01: what a pipe shows of the live events. Start, Resuming and the verified end of a file
// always; its bytes at most every five seconds, with rate and time left; the wait for Core when
// what Core says changes, else every quarter minute. A fake clock, no timing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineEvent } from '../../src/core/events.ts';
import { plainRenderer } from '../../src/ui/render-events.ts';
import { TransferClock } from '../../src/ui/progress-text.ts';

const MiB = 1024 * 1024;
const file = 'oac-runtime.tar.gz';
const progress = (received: number, phase?: 'start' | 'resuming' | 'done'): EngineEvent => ({
  type: 'progress',
  step: 'runtime',
  file,
  received,
  total: 100 * MiB,
  ...(phase === undefined ? {} : { phase }),
});

function screen() {
  let now = 0;
  const lines: string[] = [];
  const render = plainRenderer(
    (t) => lines.push(t.trimEnd()),
    false,
    () => now,
  );
  return { lines, render, advance: (ms: number) => (now += ms) };
}

test('OPS-01 a pipe always shows a file start, its resume and its end; bytes at most every 5 s', () => {
  const s = screen();
  s.render(progress(0, 'start'));
  s.advance(1000);
  s.render(progress(10 * MiB)); // 1 s after the start: too soon
  s.advance(4000);
  s.render(progress(50 * MiB)); // 5 s: due
  s.advance(1000);
  s.render(progress(60 * MiB)); // too soon again
  s.render(progress(100 * MiB, 'done'));
  assert.deepEqual(s.lines, [
    '  Downloading oac-runtime.tar.gz (100.0 MiB)',
    '  oac-runtime.tar.gz: 50.0 MiB of 100.0 MiB (50 %), 10.0 MiB/s, 5 s left',
    '  oac-runtime.tar.gz: 100.0 MiB, verified',
  ]);
});

test('DL-02 OPS-01 a resumed file says where it resumes, and its rate counts only this run', () => {
  const s = screen();
  s.render(progress(40 * MiB, 'resuming'));
  s.advance(5000);
  s.render(progress(50 * MiB));
  assert.deepEqual(s.lines, [
    '  Resuming oac-runtime.tar.gz at 40.0 MiB of 100.0 MiB',
    '  oac-runtime.tar.gz: 50.0 MiB of 100.0 MiB (50 %), 2.0 MiB/s, 25 s left',
  ]);
});

test('OPS-01 the wait for Core prints when Core says something new, else every 15 s', () => {
  const s = screen();
  const wait = (elapsed: number, said: string): EngineEvent => ({
    type: 'waiting',
    step: 'ready',
    elapsed,
    said,
  });
  s.render(wait(1, 'not connected'));
  s.advance(1000);
  s.render(wait(2, 'not connected'));
  s.advance(1000);
  s.render(wait(3, 'connected, but its provider is not ready'));
  s.advance(15_000);
  s.render(wait(18, 'connected, but its provider is not ready'));
  assert.deepEqual(s.lines, [
    '  Waiting for Core (1 s): not connected',
    '  Waiting for Core (3 s): connected, but its provider is not ready',
    '  Waiting for Core (18 s): connected, but its provider is not ready',
  ]);
});

test('OPS-01 a terminal line gives the time left in minutes and hours on a slow link', () => {
  let now = 0;
  const clock = new TransferClock(() => now);
  clock.describe({ ...progress(0, 'start'), total: 1024 * MiB } as never);
  now = 60_000;
  const line = clock.describe({ ...progress(MiB), total: 1024 * MiB } as never);
  assert.equal(line, 'oac-runtime.tar.gz: 1.0 MiB of 1.00 GiB (0 %), 17 KiB/s, 17 h 3 min left');
});
