// The test tiers' second reporter (issue #28), beside spec on stdout: one JSON line per test
// file with its wall time, then one line for the whole run, to the file given by
// --test-reporter-destination (.test-timing/<tier>.jsonl). scripts/timing-report.ts reads them.
//
// Each test file runs in its own process; the runner reports that process as a top-level test
// named by the file's path, whose test:complete carries the time from the spawn to the exit
// (tsx's start-up included). That is the file's wall time, also when files run concurrently
// (the unit tier), where the events of a file are reported late, in the order of the files,
// so the span between a file's events would be wrong. The run's line takes the runner's own
// summary (the "tests 12", "duration_ms 21034.5" diagnostics that spec prints at the end).
//
// JavaScript, not TypeScript: Node 20 loads reporters before `--import tsx` takes effect.
// A reporter never decides the exit status; this one swallows its own faults so it cannot
// turn a run into a failure either.
import { isAbsolute, relative, resolve } from 'node:path';

const SUMMARY = new Set(['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo']);

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* timing(source) {
  const started = Date.now();
  /** @type {Record<string, number>} */
  const summary = {};
  for await (const event of source) {
    let line;
    try {
      line = observe(event, summary);
    } catch {
      line = undefined; // a figure less, never a failed run
    }
    if (line !== undefined) yield `${JSON.stringify(line)}\n`;
  }
  const { duration_ms: ms = Date.now() - started, ...counts } = summary;
  const finished = new Date().toISOString();
  yield `${JSON.stringify({ kind: 'run', ...counts, ms: Math.round(ms), finished })}\n`;
}

/** A file's line when `event` completes a test file; the run's counts go into `summary`. */
function observe({ type, data }, summary) {
  if (data === null || typeof data !== 'object') return undefined;
  if (type === 'test:diagnostic' && data.file === undefined && data.nesting === 0) {
    const [key, value] = String(data.message).split(' ');
    if ((SUMMARY.has(key) || key === 'duration_ms') && Number.isFinite(Number(value)))
      summary[key] = Number(value);
    return undefined;
  }
  if (type !== 'test:complete' || data.nesting !== 0 || typeof data.file !== 'string')
    return undefined;
  const name = String(data.name);
  const isFile = name === data.file || (!isAbsolute(name) && resolve(name) === data.file);
  const ms = data.details?.duration_ms;
  if (!isFile || typeof ms !== 'number') return undefined;
  return {
    kind: 'file',
    file: relative(process.cwd(), data.file),
    ms: Math.round(ms),
    ok: data.details?.passed !== false,
  };
}
