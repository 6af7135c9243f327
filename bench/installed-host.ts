// What a test that starts from an installed node pays for it (issue #28 item 4): a fresh host
// with its Core and the line pasted in it, until the line returns with the node ready, beside a
// host booted from the run's frozen install (test/e2e/harness/installed.ts) until Core lists its
// node ready; each until the host and Core are stopped again. Prints medians of a few rounds
// (default 3), and what making the frozen install cost once; a figure, never a test:
// `npx tsx bench/installed-host.ts [ROUNDS]`, as root, with dist/oac-node built.
import { bootWithCore } from '../test/e2e/harness/core-pair.ts';
import { installByLine } from '../test/e2e/harness/enroll.ts';
import { bootInstalled } from '../test/e2e/harness/installed.ts';
import { testRelease } from '../test/e2e/helpers/release.ts';
import { partTimer } from './figures.ts';

const rounds = Number(process.argv[2] ?? 3);
const release = testRelease();
const { timed, print } = partTimer();

// The first call makes the frozen install (unless this dist/ build already has one).
await timed("installed host: the first (makes the run's install if missing)", async () =>
  (await bootInstalled(release)).stop(),
);
for (let i = 0; i < rounds; i++) {
  await timed('fresh host + Core + the line, stopped', async () => {
    const pair = await bootWithCore(async () => ['--release-dir', await release.dir()]);
    try {
      await installByLine(pair.host, pair.core);
    } finally {
      await pair.stop();
    }
  });
  await timed('installed host booted, node ready, stopped', async () =>
    (await bootInstalled(release)).stop(),
  );
}
print();
