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

/** Wall seconds of every file in a CI run (.test-timing/e2e.jsonl of a fresh clone's run on
 *  this machine at b6868d2's parent): longest first keeps the three lanes evenly loaded. */
const SLOWEST = {
  'test/e2e/ansible.test.ts': 258,
  'test/e2e/crash-1.test.ts': 179,
  'test/e2e/crash-2.test.ts': 168,
  'test/e2e/upgrade.test.ts': 153,
  'test/e2e/install.test.ts': 84,
  'test/e2e/rollout.test.ts': 60,
  'test/e2e/saved-plan.test.ts': 43,
  'test/e2e/faults-services.test.ts': 38,
  'test/e2e/private-ca.test.ts': 37,
  'test/e2e/status.test.ts': 35,
  'test/e2e/terminal.test.ts': 33,
  'test/e2e/sandbox.test.ts': 32,
  'test/e2e/faults-disk.test.ts': 31,
  'test/e2e/faults-core.test.ts': 30,
  'test/e2e/microsandbox.test.ts': 28,
  'test/e2e/distributions.test.ts': 27,
  'test/e2e/offline.test.ts': 26,
  'test/e2e/proxy.test.ts': 25,
  'test/e2e/declarative.test.ts': 24,
  'test/e2e/uninstall.test.ts': 23,
  'test/e2e/faults-clock.test.ts': 22,
  'test/e2e/rerun.test.ts': 17,
  'test/e2e/not-ready.test.ts': 16,
  'test/e2e/service-line.test.ts': 15,
  'test/e2e/accounts.test.ts': 14,
  'test/e2e/concurrency.test.ts': 14,
  'test/e2e/harness.test.ts': 9,
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
