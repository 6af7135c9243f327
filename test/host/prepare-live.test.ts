// The node half as the installer runs it (OPS-01…03, DL-02, ENR-05): the real executable's
// `_prepare` started through Host.runStreaming — the installer's own code — as UID 65532 with
// the installer's setpriv flags, against the reference Core (its drip fault makes the Runtime
// image's download slow) and a private real dockerd. Events must arrive while the child runs;
// an interruption must stop its whole process group and keep the part file for the rerun.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { NO_PRIVILEGES } from '../../src/resources/drivers/as-node.ts';
import type { EngineEvent } from '../../src/core/events.ts';
import { Host } from '../../src/host/host.ts';
import { type TestCore } from '../helpers/core.ts';
import { issueToken } from '../helpers/node.ts';
import {
  NODE_UID,
  prepareRequest,
  startPrepareFixture,
  type PrepareFixture,
} from '../helpers/prepare.ts';
import { type PrivateDockerd } from '../helpers/private-dockerd.ts';

let scratch: string;
let core: TestCore;
let dockerd: PrivateDockerd;
let dockerGid: number;
let image: { name: string; size: number; reference: string };

let fixture: PrepareFixture;
before(async () => {
  fixture = await startPrepareFixture('live');
  ({ scratch, core, dockerd, dockerGid } = fixture);
  const file = fixture.release.manifest.files.find((f) => f.kind === 'runtime-image');
  assert.ok(file?.kind === 'runtime-image');
  image = { name: file.name, size: file.size, reference: file.image.reference };
});
after(() => fixture.stop());
beforeEach(async () => {
  // Each test downloads the image itself.
  dockerd.docker(['image', 'rm', '--force', image.reference]);
  const cleared = await core.coreApi('DELETE', '/__fixture/faults');
  assert.ok(cleared.status < 300, JSON.stringify(cleared.body));
});

interface Timed {
  event: EngineEvent;
  at: number;
}

interface LiveRun {
  events: Timed[];
  exitCode: number;
  stderr: string;
  closedAt: number;
}

/** `_prepare` exactly as src/installation/node-half.ts starts it, events timed on arrival. */
async function runLive(
  request: object,
  onEvent: (event: EngineEvent) => void = () => undefined,
  signal?: AbortSignal,
): Promise<LiveRun> {
  const events: Timed[] = [];
  const args = ['--reuid', String(NODE_UID), '--regid', String(NODE_UID), ...NO_PRIVILEGES];
  args.push('--groups', String(dockerGid), '--', join(scratch, 'oac-node'), '_prepare');
  const result = await new Host('/').runStreaming('setpriv', args, {
    input: `${JSON.stringify(request)}\n`,
    env: {},
    signal,
    graceMs: 10_000,
    onLine: (line) => {
      const event = JSON.parse(line) as EngineEvent;
      events.push({ event, at: Date.now() });
      onEvent(event);
    },
  });
  return { events, ...result, closedAt: Date.now() };
}

async function drip(bytesPerMinute: number): Promise<void> {
  const fault = { kind: 'drip', bytes_per_minute: bytesPerMinute };
  const armed = await core.coreApi('PUT', '/__fixture/faults', { target: image.name, fault });
  assert.equal(armed.status, 204, JSON.stringify(armed.body));
}

const progressOf = (run: LiveRun) =>
  run.events.flatMap(({ event }) =>
    event.type === 'progress' && event.file === image.name ? [event] : [],
  );

/** The process groups of this file's `_prepare` runs now alive, found by the scratch
 *  executable's path: another host test file may run a node half of its own as the same UID
 *  at the same time (CI's run of 2d504f9 met one), so the account alone names too much. */
function prepareGroups(): number[] {
  const ours = `${join(scratch, 'oac-node')} _prepare`;
  let listing = '';
  try {
    listing = execFileSync('ps', ['-u', String(NODE_UID), '-o', 'pgid=,args='], {
      encoding: 'utf8',
    });
  } catch {
    return []; // ps exits 1 when the account runs nothing
  }
  const groups = listing.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    return match?.[2]?.includes(ours) === true ? [Number(match[1])] : [];
  });
  return [...new Set(groups)];
}

/** What is left of a process group (empty when none is). */
function groupProcesses(pgid: number): string {
  try {
    return execFileSync('pgrep', ['-g', String(pgid), '-a'], { encoding: 'utf8' });
  } catch {
    return ''; // pgrep exits 1 when there is none
  }
}

test('OPS-01 OPS-03 DL-02 events arrive while the child runs; an interruption stops its process group, keeps the part, and the rerun resumes it', async () => {
  const token = await issueToken(core);
  const request = await prepareRequest(core, scratch, 'interrupted', token, {
    docker_host: dockerd.host,
  });
  // About 20 s for the whole image: long enough to stop it half way.
  await drip(image.size * 3);
  const stop = new AbortController();
  let groups: number[] = [];
  const first = await runLive(
    request,
    (event) => {
      if (stop.signal.aborted || event.type !== 'progress' || event.phase !== undefined) return;
      if (event.received === 0) return;
      groups = prepareGroups();
      stop.abort('SIGINT');
    },
    stop.signal,
  );
  const bytes = progressOf(first).find((e) => e.phase === undefined && e.received > 0);
  assert.ok(bytes, `a progress event of ${image.name} arrived: ${JSON.stringify(first.events)}`);
  const start = progressOf(first).find((e) => e.phase === 'start');
  assert.ok(start, 'the file announced its start');
  const arrived = first.events.find((t) => t.event === bytes)?.at ?? Infinity;
  assert.ok(arrived < first.closedAt, 'the event reached the installer before the child exited');
  assert.notEqual(first.exitCode, 0, 'an interrupted child does not report success');
  const failed = first.events.find((t) => t.event.type === 'step-failed')?.event;
  assert.ok(failed?.type === 'step-failed', first.stderr);
  assert.equal(failed.code, 'interrupted');
  assert.match(failed.hint ?? '', /Run the same command again/, 'OPS-02: the hint travels');
  assert.equal(groups.length, 1, `the running child's group was seen: ${groups.join(' ')}`);
  assert.equal(groupProcesses(groups[0] ?? 0), '', 'no process of the group is left');
  const files = join(request.state_dir, 'files');
  const parts = readdirSync(files).filter((n) => n.endsWith('.part'));
  assert.deepEqual(parts, [`${image.name}.part`], 'the part file is kept');
  const kept = statSync(join(files, parts[0] ?? '')).size;
  assert.ok(kept > 0 && kept < image.size, `${kept} of ${image.size} bytes kept`);

  await core.coreApi('DELETE', '/__fixture/faults');
  const rerun = await runLive(request);
  assert.equal(rerun.exitCode, 0, rerun.stderr);
  const resumed = progressOf(rerun).find((e) => e.phase !== undefined);
  assert.deepEqual(
    resumed && { phase: resumed.phase, received: resumed.received },
    { phase: 'resuming', received: kept },
    'DL-02: the rerun resumes where the interrupted run stopped',
  );
  assert.ok(progressOf(rerun).some((e) => e.phase === 'done'));
});

test('ENR-05 a command that expires during a slow download: the download finishes and is kept, registration says to copy a fresh command, the rerun downloads nothing and registers', async () => {
  const token = await issueToken(core, { ttl_seconds: 3 });
  const request = await prepareRequest(core, scratch, 'expired', token, {
    docker_host: dockerd.host,
  });
  await drip(image.size * 12); // about 5 s: longer than the token lives
  const first = await runLive(request);
  assert.notEqual(first.exitCode, 0);
  const failed = first.events.find((t) => t.event.type === 'step-failed')?.event;
  assert.ok(failed?.type === 'step-failed', first.stderr);
  assert.equal(failed.step, 'enroll');
  assert.equal(failed.code, 'enrollment_token_refused');
  assert.equal(failed.message, 'The enrollment command expired or was already used');
  assert.match(failed.hint ?? '', /Generate a new command/);
  assert.ok(
    progressOf(first).some((e) => e.phase === 'done'),
    'the download finished',
  );
  assert.ok(
    dockerd.docker(['image', 'inspect', image.reference]).status === 0,
    'and its image is kept',
  );

  await core.coreApi('DELETE', '/__fixture/faults');
  const fresh = await issueToken(core);
  const rerun = await runLive({ ...request, token: fresh });
  assert.equal(rerun.exitCode, 0, rerun.stderr);
  assert.deepEqual(progressOf(rerun), [], 'nothing is downloaded again');
  const done = rerun.events.flatMap(({ event }) =>
    event.type === 'step-done' ? [[event.step, event.result.outcome]] : [],
  );
  assert.deepEqual(Object.fromEntries(done).enroll, 'created');
  assert.ok(existsSync(join(request.state_dir, 'identity.json')));
});

/** `_prepare` with its stdout on a pipe this test reads until `enough` says so; then `end`
 *  does what ends the child (closing the read end, or SIGKILL to its group). */
async function runUntil(
  request: object,
  enough: (received: number, elapsedMs: number) => boolean,
  end: (child: ReturnType<typeof spawn>) => void,
): Promise<{ status: number | null; signal: string | null; stderr: string; pgid: number }> {
  const args = ['--reuid', String(NODE_UID), '--regid', String(NODE_UID), ...NO_PRIVILEGES];
  args.push('--groups', String(dockerGid), '--', join(scratch, 'oac-node'), '_prepare');
  const child = spawn('setpriv', args, { env: {}, detached: true, stdio: 'pipe' });
  child.stdin.end(`${JSON.stringify(request)}\n`);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = Date.now();
  let pending = '';
  let ended = false;
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const event = JSON.parse(line) as EngineEvent;
      const received = event.type === 'progress' && event.phase === undefined ? event.received : 0;
      if (!ended && received > 0 && enough(received, Date.now() - started)) {
        ended = true;
        end(child);
      }
    }
  });
  return new Promise((resolve) =>
    child.once('close', (status, signal) =>
      resolve({ status, signal, stderr, pgid: child.pid ?? 0 }),
    ),
  );
}

function keptPart(request: { state_dir: string }): number {
  return statSync(join(request.state_dir, 'files', `${image.name}.part`)).size;
}

test('OPS-03 DL-02 the installer gone (its end of the events pipe closed): the node half stops at a step boundary and keeps what arrived, instead of dying of the broken pipe', async () => {
  const token = await issueToken(core);
  const request = await prepareRequest(core, scratch, 'reader-gone', token, {
    docker_host: dockerd.host,
  });
  await drip(image.size * 3); // about 20 s for the image: well under the 1 MiB of one batch
  const run = await runUntil(
    request,
    () => true,
    (child) => child.stdout?.destroy(),
  );
  assert.doesNotMatch(run.stderr, /EPIPE|Error:/, 'no crash on the broken pipe');
  assert.equal(run.status, 141, `the status of an interrupted run (SIGPIPE): ${run.stderr}`);
  assert.equal(groupProcesses(run.pgid), '', 'no process of the node half is left');
  const kept = keptPart(request);
  assert.ok(kept > 0 && kept < image.size, `${kept} of ${image.size} bytes kept`);
});

test('DL-02 a node half killed outright (SIGKILL) keeps what arrived more than a second before', async () => {
  const token = await issueToken(core);
  const request = await prepareRequest(core, scratch, 'killed', token, {
    docker_host: dockerd.host,
  });
  await drip(image.size * 3);
  let atKill = 0;
  const run = await runUntil(
    request,
    (received, elapsedMs) => elapsedMs > 3_000 && (atKill = received) > 0,
    (child) => process.kill(-(child.pid ?? 0), 'SIGKILL'),
  );
  assert.equal(run.signal, 'SIGKILL');
  const kept = keptPart(request);
  // Written at least once a second: of what had arrived, at most the last two seconds' worth
  // (the drip sends image.size * 3 a minute) may be missing.
  const twoSeconds = (image.size * 3 * 2) / 60;
  assert.ok(kept > 0 && kept >= atKill - twoSeconds, `${kept} bytes kept of ${atKill} arrived`);
});
