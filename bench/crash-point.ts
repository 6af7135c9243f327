// What one point of the e2e crash matrix costs (issue #28): the phases of each point of
// test/e2e/helpers/crash-host.ts, timed one by one on the e2e host (real systemd and Docker)
// with its Core. Prints medians of a few rounds (default 3); a figure, never a test:
// `npx tsx bench/crash-point.ts [ROUNDS]`, with dist/oac-node and its test build
// (dist-test, scripts/test.sh) built.
import { removeNodesInCore } from '../test/e2e/harness/core-nodes.ts';
import { bootWithCore } from '../test/e2e/harness/core-pair.ts';
import { installByLine, issueToken } from '../test/e2e/harness/enroll.ts';
import { testRelease } from '../test/e2e/helpers/release.ts';
import { partTimer } from './figures.ts';

const rounds = Number(process.argv[2] ?? 3);
const release = testRelease({ testHooks: true });
const pair = await bootWithCore(async () => ['--release-dir', await release.dir()]);
const { timed, print } = partTimer();
try {
  const { host, core } = pair;
  const first = await timed('install by the line', () => installByLine(host, core));
  const [, , , exe] = first.uninstall;
  const args = ['install', '--core-url', core.coreUrl, '--installation-id', first.installationId];
  const install = async (env: string[] = []) =>
    host.exec(['env', '-u', 'NODE_OPTIONS', ...env, exe as string, ...args], {
      stdin: `${(await issueToken(core)).token}\n`,
      timeoutMs: 300_000,
    });
  for (let i = 0; i < rounds; i++) {
    await timed('snapshot', () => host.snapshot());
    await timed('rerun (no change)', () => install());
    await timed('remove in Core', () => removeNodesInCore(core));
    const u = await timed('uninstall', () => host.exec(first.uninstall));
    if (u.status !== 0) throw new Error(u.stderr);
    const r = await timed('install (image kept)', () => install());
    if (r.status !== 0) throw new Error(r.stderr);
    await removeNodesInCore(core);
    await host.exec(first.uninstall);
    await timed('install killed at after:record:unit', () =>
      install(['OAC_NODE_TEST_KILL_AT=after:record:unit']),
    );
    await timed('rerun after the kill', () => install());
    await removeNodesInCore(core);
    await host.exec(first.uninstall);
    await install();
  }
} finally {
  await pair.stop();
}
print();
