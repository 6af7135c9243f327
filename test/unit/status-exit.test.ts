// Issue #25 item 3: status's exit status says which kind of problem there is, so a script can
// act on it: 2 drift (a rerun repairs it), 5 something could not be checked, 6 Core does not
// have the node ready, 0 all is well; Core's removal first, then drift, then what was not
// checked, then Core's other views.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STATUS_EXIT, statusExit, type NodeStatus } from '../../installer/status.ts';

type Parts = Pick<NodeStatus, 'resources' | 'core' | 'node_half' | 'other_host'>;
const present = { key: 'unit', kind: 'unit', name: 'u', ownership: 'owned', state: 'present' };
const status = (over: Partial<Parts> = {}): Parts => ({
  resources: [present] as Parts['resources'],
  core: { state: 'ready', node_id: 'n1' },
  node_half: { state: 'checked' },
  other_host: false,
  ...over,
});
const drifted = [{ ...present, state: 'drifted', detail: 'edited by hand' }] as Parts['resources'];

test('issue #25 status exits 0 only when the host matches and Core has the node ready', () => {
  assert.equal(statusExit(status()), STATUS_EXIT.converged);
  assert.equal(STATUS_EXIT.converged, 0);
});

test('issue #25 status exit statuses: drift 2, not checked 5, not ready at Core 6, in that order', () => {
  assert.equal(statusExit(status({ resources: drifted })), 2);
  assert.equal(statusExit(status({ core: { state: 'unreachable' } })), 5);
  assert.equal(statusExit(status({ core: { state: 'unknown' } })), 5);
  assert.equal(statusExit(status({ node_half: { state: 'unknown', detail: 'Docker' } })), 5);
  for (const state of ['not ready', 'disconnected', 'removed', 'not registered'] as const)
    assert.equal(statusExit(status({ core: { state } })), 6, state);
  // Drift wins: the rerun is what to do first, whatever Core says ...
  assert.equal(statusExit(status({ resources: drifted, core: { state: 'unreachable' } })), 2);
  assert.equal(statusExit(status({ resources: drifted, core: { state: 'disconnected' } })), 2);
  // ... unless Core removed the node: its service stops (78), and no rerun brings it back.
  assert.equal(statusExit(status({ resources: drifted, core: { state: 'removed' } })), 6);
  assert.equal(
    statusExit(status({ core: { state: 'not ready' }, node_half: { state: 'unknown' } })),
    5,
  );
  assert.deepEqual(
    new Set(Object.values(STATUS_EXIT)).size,
    Object.values(STATUS_EXIT).length,
    'each status means one thing',
  );
});

test("NODE-06 a copy of the node's host comes before everything else: exit 78", () => {
  assert.equal(STATUS_EXIT.otherHost, 78);
  const copied = { other_host: true, core: { state: 'unknown' as const } };
  assert.equal(statusExit(status(copied)), 78);
  assert.equal(statusExit(status({ ...copied, resources: drifted })), 78);
});
