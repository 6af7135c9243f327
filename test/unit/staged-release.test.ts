// Issue #38 item 2, OFFLINE-01: staging a bundle's release is a step of the plan
// (src/installation/staged-release.ts). Its diff is the node half's dry run of the staging, a
// part per step (never its words joined into one line of root's); its apply stops the service
// meanwhile and starts it again whatever happens.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActionPart } from '../../src/core/step.ts';
import type { Host } from '../../src/host/host.ts';
import { stagedReleaseDriver, stoppedMeanwhile } from '../../src/installation/staged-release.ts';
import type { StagedReleaseResource } from '../../src/resources/resources.ts';

const STAGED: StagedReleaseResource = {
  ...{ kind: 'staged-release', key: 'stage', title: 'Stage', phase: 'prepare' },
  ...{ release: '0.2.0-abc', generation: 4, unit: 'oac-node-x.service' },
};
const part = (step: string, kind: ActionPart['action']['kind']): ActionPart => ({
  step,
  title: step,
  action: { kind, detail: `${kind} ${step}` },
});
const diff = (planned: ActionPart[]) => stagedReleaseDriver.diff(STAGED, { planned }, new Map());

test('OFFLINE-01 the staging step: what the node half would copy, as parts, and the restart', () => {
  const nothing = diff([part('files', 'unchanged')]);
  assert.equal(nothing.kind, 'update', 'the restart that hands the release to the rollout');
  assert.equal(
    nothing.detail,
    'stage release 0.2.0-abc for generation 4 (nothing to copy), then restart oac-node-x.service',
  );
  const copying = diff([part('files', 'create'), part('image', 'create'), part('x', 'unchanged')]);
  assert.match(copying.detail, /\(2 steps of the node half change\), then restart /);
  assert.deepEqual(
    copying.parts?.map((p) => p.step),
    ['files', 'image', 'x'],
  );
});

test('OFFLINE-01 PRE-09 a refusal of the node half refuses the staging in the plan, before the service is touched', () => {
  const refusal = { code: 'not_a_directory', message: 'a file where a directory belongs' };
  const refused = diff([
    part('files', 'unchanged'),
    { step: 'state', title: 'state', action: { kind: 'refuse', detail: 'x', refusals: [refusal] } },
  ]);
  assert.equal(refused.kind, 'refuse');
  assert.deepEqual(refused.refusals, [refusal]);
  assert.equal(refused.detail, 'release 0.2.0-abc for generation 4: refused');
});

/** A host whose systemctl only records what it was asked. */
function recordingHost(active: boolean) {
  const calls: string[] = [];
  const host = {
    prefixed: false,
    lstat: async () => ({}),
    run: async (_command: string, args: string[]) => {
      calls.push(args.join(' '));
      const asked = args.includes('is-active');
      return { exitCode: asked && !active ? 3 : 0, stdout: '', stderr: '' };
    },
  } as unknown as Host;
  return { host, calls };
}

test('OFFLINE-01 the service stopped while the release is staged, started again even when staging fails', async () => {
  const ok = recordingHost(true);
  await stoppedMeanwhile(ok.host, 'oac-node-x.service', async () => undefined);
  assert.deepEqual(ok.calls, [
    'is-active --quiet oac-node-x.service',
    'stop oac-node-x.service',
    'start oac-node-x.service',
  ]);
  const failing = recordingHost(true);
  await assert.rejects(
    stoppedMeanwhile(failing.host, 'oac-node-x.service', () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(failing.calls.at(-1), 'start oac-node-x.service', 'started again after a failure');
  const idle = recordingHost(false);
  await stoppedMeanwhile(idle.host, 'oac-node-x.service', async () => undefined);
  assert.deepEqual(idle.calls, ['is-active --quiet oac-node-x.service'], 'a stopped one stays');
});
