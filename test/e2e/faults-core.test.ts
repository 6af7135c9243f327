// REL-01 (issue #26 item 1) in a real host: Core failing in the middle of a run, through the
// reference Core's fault switches (fixtures/core/faults.ts): a 500, an answer that is not the
// machine API's ("garbage"), and a connection closed once Core has done the work (the answer
// lost). At each of the run's three conversations with Core: the configuration read (the
// preflight, before anything changes), the enrollment (the node half, half way through), the
// wait for ready (the end). A failure that lasts beyond the retries is one line and a hint; a
// short one is retried and the run goes on; the wait for ready says what Core answered and
// waits on. The journal stays whole; the last run converges and uninstall returns the host to
// its snapshot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CoreInHost } from './helpers/core-in-host.ts';
import { withHostAndCore } from './harness/core-pair.ts';
import {
  assertConvergedThenUninstall,
  assertJournalWhole,
  assertOk,
  assertOneLine,
  faultRun,
} from './harness/faults.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();
const coreArgs = async () => ['--release-dir', await release.dir()];

const API = '/api/v1/sandbox-node';
const SERVER_ERROR = { kind: 'status', status: 500 };
const GARBAGE = { kind: 'answer', status: 200, body: '<html>Bad gateway</html>' };
const CLOSED = { kind: 'lose_response' };
/** The Core client's tries of one request (src/net/retry.ts DEFAULT_RETRY). */
const TRIES = 4;

async function arm(core: CoreInHost, route: string, fault: object, count: number): Promise<void> {
  const r = await core.coreApi('PUT', '/__fixture/faults', {
    target: `${API}/${route}`,
    fault,
    count,
  });
  assert.equal(r.status, 204, JSON.stringify(r.body));
}

const FAILED = /^ {2}hint: The fault is Core's or a proxy's in front of it/;
const NOT_API = /^ {2}hint: Check that the address is a Core of a matching version/;

test('REL-01 Core answering 500, then garbage, then a closed connection during the configuration read, the enrollment and the wait for ready: a lasting failure is one line and a hint, a short one is retried, the wait says what Core answered; the journal whole, the install converges and uninstall returns the host to its snapshot', async () => {
  await withHostAndCore(coreArgs, async (host, core) => {
    const pristine = await host.snapshot();
    const run = await faultRun(host, core);

    // The configuration read: a 500 on every try, then garbage: each a line, nothing changed.
    await arm(core, 'configuration', SERVER_ERROR, TRIES);
    const failing = await run.line();
    assertOneLine(
      failing,
      /^oac-node: Core failed to answer .*configuration.* \(HTTP 500\)/,
      FAILED,
      'configuration: 500',
    );
    await arm(core, 'configuration', GARBAGE, 1);
    const garbage = await run.install();
    assertOneLine(
      garbage,
      /^oac-node: Core's answer to .*configuration.* does not match the machine API/,
      NOT_API,
      'configuration: garbage',
    );
    assert.deepEqual(diffSnapshots(pristine, await host.snapshot()), [], 'nothing changed');

    // A closed connection and a 500, retried, at the configuration read; then the enrollment
    // answers 500 on every try, then garbage: the run stops half way, its journal whole.
    await arm(core, 'configuration', CLOSED, 1);
    await arm(core, 'configuration', SERVER_ERROR, 1);
    await arm(core, 'enroll', SERVER_ERROR, TRIES);
    const enrolling = await run.install();
    assertOneLine(
      enrolling,
      /^oac-node: Core failed to answer .*enroll.* \(HTTP 500\)/,
      FAILED,
      'enroll: 500',
    );
    assertJournalWhole(await run.journal(), 'enroll: 500');
    await arm(core, 'enroll', GARBAGE, 1);
    const enrollGarbage = await run.install();
    assertOneLine(
      enrollGarbage,
      /^oac-node: Core's answer to .*enroll.* does not match the machine API/,
      NOT_API,
      'enroll: garbage',
    );
    assertJournalWhole(await run.journal(), 'enroll: garbage');

    // The enrollment's answer lost after Core enrolled the node: retried, found enrolled (the
    // node's identity, asked of Core), and the run ends ready.
    await arm(core, 'enroll', CLOSED, 1);
    const lost = await run.install();
    assertOk(lost, 'a lost enrollment answer');
    assert.match(lost.stdout, /^Node \S+ is connected and ready\.$/m);

    // The wait for ready meets a 500, garbage and a closed connection: it says what Core
    // answered, asks again, and ends ready.
    await arm(core, 'identity', SERVER_ERROR, 1);
    await arm(core, 'identity', GARBAGE, 1);
    await arm(core, 'identity', CLOSED, 1);
    const waited = await run.install();
    assertOk(waited, 'a failing wait for ready');
    assert.match(waited.stdout, /Waiting for Core .*HTTP 500/, 'the wait said the 500');
    assert.match(waited.stdout, /Waiting for Core .*does not match the machine API/, 'the garbage');
    assert.match(waited.stdout, /Waiting for Core .*Cannot reach Core at \S+: /, 'the closed one');
    assert.match(waited.stdout, /^Node \S+ is connected and ready\.$/m);

    await assertConvergedThenUninstall(host, core, run, pristine);
  });
});
