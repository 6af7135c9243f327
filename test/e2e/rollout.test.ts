// Issue #6 end to end: a node installed by the one-line command follows a configuration change
// in Core. The new generation names another release; while its Runtime archive is missing from
// the release, and then while it is corrupted, the node reports `failed` with a readiness code and
// keeps serving the old generation, connected and ready; once the file is restored, its next
// attempt makes the new generation `ready`, without restarting the service. A rerun of the
// original command meanwhile changes nothing and says that the node prepares the change itself
// (RERUN-02).
import assert from 'node:assert/strict';
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildRelease } from '../../fixtures/release/build.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { listNodes, type CoreNode } from './harness/core-nodes.ts';
import {
  addKvmDevice,
  hostWithCore,
  withHostAndCore,
  type CoreInHost,
} from './harness/core-pair.ts';
import { installByLine } from './harness/enroll.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { waitInHost, waitUntil } from './harness/wait.ts';
import { releaseFromDist } from './helpers/release.ts';
import { noKvm } from '../helpers/kvm.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';

let scratch: string;
let nextRelease: { id: string; archive: string; reference: string };
// The Core serves release a and knows b; its arguments are read once the releases are built.
const pair = hostWithCore(() => [
  '--release-dir',
  join(scratch, 'a'),
  '--extra-release-dir',
  join(scratch, 'b'),
]);
/** The node the first test installs; the two after it follow on from its state. */
let installed: { unit: string; state: string } | undefined;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'oac-e2e-rollout-'));
  await releaseFromDist(join(scratch, 'a'));
  const exe = requireExecutable();
  const b = await buildRelease({
    executable: exe,
    executableGz: `${exe}.gz`,
    outDir: join(scratch, 'b'),
    version: '9.9.9',
  });
  const image = b.manifest.files.find((f) => f.kind === 'runtime-image');
  assert.ok(image?.kind === 'runtime-image');
  nextRelease = {
    id: b.manifest.release,
    archive: join(scratch, 'b', image.name),
    reference: image.image.reference,
  };
  await pair.boot();
});
after(() => {
  rmSync(scratch, { recursive: true, force: true });
});

async function node(at: CoreInHost = pair.core): Promise<CoreNode> {
  const [first] = await listNodes(at);
  assert.ok(first, 'Core lists the node');
  return first;
}

/** Polls Core's node (at `at`) until `check` holds. */
const until = (what: string, check: (n: CoreNode) => boolean, ms = 120_000, at?: CoreInHost) =>
  waitUntil(what, () => node(at), { done: check, timeoutMs: ms, intervalMs: 250 });

/** Core's configuration moves to `release`; returns the deployment from before. */
async function targetRelease(
  at: CoreInHost,
  release: string,
): Promise<{ specification: Record<string, unknown>; generation: number }> {
  const deployment = (await at.coreApi('GET', '/core/v1/sandbox/deployment')).body as {
    specification: Record<string, unknown>;
    generation: number;
  };
  const put = await at.coreApi('PUT', '/core/v1/sandbox/specification', {
    specification: { ...deployment.specification, release },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  return deployment;
}

/** Core's target moves to the release in `<scratch>/<dir>`, whose image is first removed from
 *  Docker so that the node downloads it again, in about `seconds`; returns once the node has
 *  opened the part file. */
async function slowRollout(state: string, dir: 'a' | 'b', seconds: number) {
  const { host, core } = pair;
  const manifest = JSON.parse(readFileSync(join(scratch, dir, 'manifest.json'), 'utf8')) as {
    release: string;
    files: Array<{ kind: string; name: string; size: number; image?: { reference: string } }>;
  };
  const image = manifest.files.find((f) => f.kind === 'runtime-image');
  assert.ok(image?.image);
  await host.shOk(`docker image rm ${image.image.reference} >/dev/null`);
  const fault = { kind: 'drip', bytes_per_minute: Math.ceil((image.size * 60) / seconds) };
  const armed = await core.coreApi('PUT', '/__fixture/faults', { target: image.name, fault });
  assert.equal(armed.status, 204);
  const deployment = await targetRelease(core, manifest.release);
  // The part is opened as the transfer starts; its bytes are written a MiB at a time (these
  // images are about one), and whatever arrived is written when the transfer is stopped.
  const part = `${state}/files/${image.name}.part`;
  await waitInHost(host, `the part file ${part}`, `[ -e ${part} ]`, {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  return { image, deployment, part };
}

/** Waits until Core has sent at least `bytes` of `file` (its request log counts them as they
 *  go), rather than for a fixed time that a loaded machine may not match. */
function untilSent(file: string, bytes: number, ms = 120_000): Promise<number> {
  const sent = async () => {
    const log = (await pair.core.coreApi('GET', '/__fixture/requests')).body as Array<{
      path: string;
      body_bytes: number;
    }>;
    return Math.max(0, ...log.filter((e) => e.path.endsWith(`/${file}`)).map((e) => e.body_bytes));
  };
  return waitUntil(`Core to send ${bytes} bytes of ${file}`, sent, {
    done: (n) => n >= bytes,
    timeoutMs: ms,
    intervalMs: 200,
  });
}

/** A wait inside the host (one round trip): the unit's journal shows `pattern`. */
async function nodeLog(unit: string, pattern: RegExp): Promise<void> {
  const grep = `journalctl -u ${unit} --no-pager | grep -q -E '${pattern.source}'`;
  await waitInHost(pair.host, `${unit} to log ${pattern}`, grep, {
    timeoutMs: 60_000,
    intervalMs: 200,
  });
}

test('issue #6 a configuration change: preparing → failed while the file is missing or corrupt → ready once restored, serving the old generation meanwhile, without a restart', async () => {
  const { host, core } = pair;
  const { command, installationId } = await installByLine(host, core);
  const { unitName: unit, stateDir: state } = layout(parseInstallationId(installationId));
  const pid = (await host.shOk(`systemctl show -p MainPID --value ${unit}`)).trim();
  installed = { unit, state };

  // The new release's Runtime archive is missing from the release server.
  renameSync(nextRelease.archive, `${nextRelease.archive}.aside`);
  const deployment = await targetRelease(core, nextRelease.id);
  const target = deployment.generation + 1;

  await nodeLog(
    unit,
    new RegExp(`Preparing generation ${target} \\(serving ${deployment.generation}\\)`),
  );
  const failed = await until('failed', (n) => n.rollout.state === 'failed');
  assert.equal(failed.rollout.diagnostic, 'runtime_image_unavailable');
  assert.deepEqual(
    { connected: failed.connected, ready: failed.provider_ready, serving: failed.generation },
    { connected: true, ready: true, serving: deployment.generation },
    'it keeps serving the old generation, connected and ready',
  );

  // RERUN-02: the original command changes nothing and says the node prepares the change.
  const before = await host.snapshot();
  const rerun = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 300_000 });
  assert.notEqual(rerun.status, 0);
  assert.match(
    rerun.stderr,
    new RegExp(
      `^oac-node: Core's sandbox configuration changed \\(generation ${target}\\); this node serves generation ${deployment.generation} and prepares the change itself, so this command changes nothing$`,
      'm',
    ),
  );
  const changed = diffSnapshots(before, await host.snapshot());
  assert.deepEqual(changed, [], 'the rerun changed nothing');

  // A corrupted archive of the right size: verified, never ready.
  const good = readFileSync(`${nextRelease.archive}.aside`);
  const bad = Buffer.from(good);
  bad[bad.length >> 1] = (bad[bad.length >> 1] ?? 0) ^ 0xff;
  writeFileSync(nextRelease.archive, bad);
  await nodeLog(unit, /does not match the release manifest/);
  const stillFailed = await node();
  assert.equal(stillFailed.rollout.state, 'failed', 'a corrupted file is never reported ready');
  assert.equal(stillFailed.generation, deployment.generation);

  // Restored: the next attempt makes the new generation ready.
  copyFileSync(`${nextRelease.archive}.aside`, nextRelease.archive);
  const ready = await until('ready', (n) => n.rollout.state === 'ready' && n.generation === target);
  assert.deepEqual({ c: ready.connected, r: ready.provider_ready }, { c: true, r: true });
  assert.equal(
    (await host.shOk(`systemctl show -p MainPID --value ${unit}`)).trim(),
    pid,
    'the service was not restarted',
  );
  assert.match(
    await host.shOk(`docker image ls --format '{{.Repository}}:{{.Tag}}'`),
    new RegExp(`^${nextRelease.reference.replace(/[.]/g, '\\.')}$`, 'm'),
  );
  const provider = JSON.parse(await host.shOk(`cat ${state}/provider.json`)) as {
    generation: number;
    adapter: { image: string };
  };
  assert.deepEqual(
    { generation: provider.generation, image: provider.adapter.image },
    { generation: target, image: nextRelease.reference },
  );
  assert.equal(
    (
      await host.shOk(`stat -c '%U' ${state}/provider.json ${state}/serving.json ${state}/files`)
    ).trim(),
    'oac-node\noac-node\noac-node',
    'prepared as oac-node, not root',
  );

  // Now that it serves the target, the original command is a clean rerun again.
  const again = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 300_000 });
  assert.equal(again.status, 0, `${again.stdout}\n${again.stderr}`);
  assert.doesNotMatch(again.stdout, /\b(created|updated|replaced|removed)\b/, again.stdout);
});

test('issue #6 OPS-03 systemctl stop during a rollout download: the service stops at once and keeps the part; the next start resumes it and serves the new generation', async () => {
  // Follows the test above: the node serves release b. Back to release a, whose image is removed
  // first so that the rollout must download it again, slowly.
  assert.ok(installed, 'the first test installed the node');
  const { host, core } = pair;
  const { unit, state } = installed;
  const { image, deployment, part } = await slowRollout(state, 'a', 30);
  const target = deployment.generation + 1;
  await untilSent(image.name, Math.ceil(image.size / 10)); // a tenth of it on its way

  const started = Date.now();
  await host.shOk(`systemctl stop ${unit}`);
  const took = Date.now() - started;
  const result = (await host.shOk(`systemctl show -p Result --value ${unit}`)).trim();
  const log = (await host.sh(`journalctl -u ${unit} --no-pager | tail -20`)).stdout;
  assert.equal(result, 'success', `stopped by SIGTERM, not killed at the stop timeout:\n${log}`);
  assert.ok(took < 20_000, `stopped within ${took} ms`);
  assert.match(log, new RegExp(`Generation ${target}: stopped; the next start continues it`));
  const kept = Number((await host.shOk(`stat -c %s ${part}`)).trim());
  assert.ok(kept > 0 && kept < image.size, `the part is kept: ${kept} of ${image.size} bytes`);

  await core.coreApi('DELETE', '/__fixture/faults');
  await core.coreApi('DELETE', '/__fixture/requests');
  await host.shOk(`systemctl start ${unit}`);
  const ready = await until('ready', (n) => n.rollout.state === 'ready' && n.generation === target);
  assert.deepEqual({ c: ready.connected, r: ready.provider_ready }, { c: true, r: true });
  const asked = (await core.coreApi('GET', '/__fixture/requests')).body as Array<{
    path: string;
    range: string | null;
    status: number | null;
    body_bytes: number;
  }>;
  const fetched = asked.filter((r) => r.path.endsWith(image.name));
  const journal = (await host.sh(`journalctl -u ${unit} --no-pager | tail -30`)).stdout;
  const why = `${JSON.stringify(fetched)}\n${journal}`;
  // Core redirects to the release server; every request asks for the rest only.
  assert.ok(
    fetched.length > 0 && fetched.every((r) => r.range === `bytes=${kept}-`),
    `the next start resumed the kept part: ${why}`,
  );
  const served = fetched.filter((r) => r.status === 206);
  assert.deepEqual(
    served.map((r) => r.body_bytes),
    [image.size - kept],
    `only the missing bytes came: ${why}`,
  );
});

test('issue #6 a target that moves on while a preparation downloads is prepared next, without another word from Core', async () => {
  // Follows the test above: the node serves release a. Release b's image is removed so that
  // preparing b downloads it, slowly; meanwhile Core's target moves on to a again.
  assert.ok(installed, 'the first test installed the node');
  const { unit, state } = installed;
  const { deployment } = await slowRollout(state, 'b', 20);
  const second = await pair.core.coreApi('PUT', '/core/v1/sandbox/specification', {
    specification: deployment.specification,
  });
  assert.equal(second.status, 200);
  await pair.core.coreApi('DELETE', '/__fixture/faults');
  const final = deployment.generation + 2;
  const ready = await until(
    `ready for generation ${final}`,
    (n) => n.rollout.state === 'ready' && n.generation === final,
    60_000,
  );
  assert.deepEqual({ c: ready.connected, r: ready.provider_ready }, { c: true, r: true });
  const log = (await pair.host.sh(`journalctl -u ${unit} --no-pager`)).stdout;
  const moved = deployment.generation + 1;
  assert.doesNotMatch(log, new RegExp(`Generation ${moved} is ready`), 'never switched to it');
  assert.match(
    log,
    new RegExp(`Preparing generation ${final} \\(serving ${deployment.generation}\\)`),
    'the next target is prepared from the generation served before',
  );
});

test(
  'issue #6 microsandbox: the new release prepared and verified as oac-node, then the old generation released once Core no longer needs it',
  { skip: noKvm },
  async () => {
    const args = [
      ...['--release-dir', join(scratch, 'a'), '--extra-release-dir', join(scratch, 'b')],
      ...['--provider', 'microsandbox'],
    ];
    await withHostAndCore(args, async (kvm, ms) => {
      await addKvmDevice(kvm);
      const { installationId } = await installByLine(kvm, ms);
      const state = `/var/lib/oac-node/.oac/nodes/${installationId}`;
      const files = async () => (await kvm.shOk(`ls ${state}/files`)).trim().split('\n').sort();
      const before = await files();
      assert.equal(before.length, 3);

      const deployment = await targetRelease(ms, nextRelease.id);
      const target = deployment.generation + 1;
      const ready = (n: CoreNode) => n.rollout.state === 'ready' && n.generation === target;
      const seen = await until('ready', ready, 120_000, ms);
      assert.equal(seen.generation, target, JSON.stringify(seen));
      assert.equal(seen.provider_ready, true, 'it opened /dev/kvm and checked the new files');

      const unit = `oac-node-${installationId}.service`;
      const released = `Released generation ${deployment.generation}`;
      await waitInHost(
        kvm,
        `${unit} to log ${released}`,
        `journalctl -u ${unit} --no-pager | grep -q '${released}'`,
        {
          timeoutMs: 20_000,
          intervalMs: 200,
          explain: `journalctl -u ${unit} --no-pager | tail -20`,
        },
      );
      const after = await files();
      assert.equal(after.length, 3, `only the new release's three files stay: ${after.join(' ')}`);
      assert.ok(
        after.every((name) => name.includes(nextRelease.id)),
        `the old release's files are released: ${after.join(' ')}`,
      );
      assert.equal(
        (await kvm.sh(`ls ${state}/generations`)).stdout.trim(),
        '',
        'the kept provider file of the old generation is gone',
      );
      assert.equal(
        (await kvm.shOk(`stat -c '%U' ${state}/files/*`)).trim(),
        'oac-node\noac-node\noac-node',
      );
    });
  },
);
