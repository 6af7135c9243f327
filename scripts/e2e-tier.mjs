// The e2e tier (issue #28): every test/e2e/*.test.ts, three at a time, with the spec reporter on
// stdout and the timing reporter into .test-timing/e2e.jsonl, as `node --test` would run them,
// but the slowest first. `node --test` sorts its files by name, so a slow file whose name sorts
// late (upgrade.test.ts) started last and ran alone at the end, its lanes idle; the runner's
// own API keeps the order it is given ("longest first", the classic way to shorten the tail).
// The order comes from SLOWEST below (seconds of the last CI run, a file not named there runs
// after them, by name); it decides only when a file starts, never whether it runs.
//
// Run as `node --import tsx scripts/e2e-tier.mjs [FILE…]` (the runner passes --import tsx on to
// each file's process). JavaScript: Node 20 loads this before tsx could compile it.
import { createWriteStream, mkdirSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import timing from '../test/reporters/timing.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const CONCURRENCY = 3;

/** Wall seconds of the slowest files in the last CI run (the timing report's table). */
const SLOWEST = {
  'test/e2e/ansible.test.ts': 375,
  'test/e2e/crash-2.test.ts': 236,
  'test/e2e/crash-1.test.ts': 213,
  'test/e2e/upgrade.test.ts': 155,
  'test/e2e/install.test.ts': 95,
  'test/e2e/rollout.test.ts': 88,
  'test/e2e/accounts.test.ts': 84,
  'test/e2e/distributions.test.ts': 67,
  'test/e2e/concurrency.test.ts': 67,
  'test/e2e/microsandbox.test.ts': 60,
  'test/e2e/uninstall.test.ts': 58,
};

function files() {
  const given = process.argv.slice(2);
  const all =
    given.length > 0
      ? given.map((f) => relative(root, join(process.cwd(), f)))
      : readdirSync(join(root, 'test/e2e'))
          .filter((f) => f.endsWith('.test.ts'))
          .map((f) => `test/e2e/${f}`);
  const seconds = (f) => SLOWEST[f] ?? 0;
  return all.sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
}

mkdirSync(join(root, '.test-timing'), { recursive: true });
const stream = run({ files: files().map((f) => join(root, f)), concurrency: CONCURRENCY });
stream.on('test:fail', () => (process.exitCode = 1));
stream.compose(spec).pipe(process.stdout);
stream.compose(timing).pipe(createWriteStream(join(root, '.test-timing/e2e.jsonl')));
