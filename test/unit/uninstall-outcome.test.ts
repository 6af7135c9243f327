// Issue #39 item 1: `uninstall --force` says what it did not do. Core was not asked, so the node
// it may still list is named, with where to remove it; an uninstall that keeps something for a
// rerun (a store Core has not confirmed, UNI-05) does not claim the node is removed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outcomeLines } from '../../src/cli/uninstall-output.ts';

const NODE = '7a1c2b3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ran = (o: { unaskedNode?: string; incomplete?: boolean; changed?: boolean } = {}) => ({
  recorded: true,
  others: [],
  report: { steps: [], changed: o.changed ?? true },
  incomplete: o.incomplete ?? false,
  ...(o.unaskedNode === undefined ? {} : { unaskedNode: o.unaskedNode }),
});

test('UNI-01 issue #39 --force names the node Core was not asked about, and where to remove it', () => {
  assert.deepEqual(outcomeLines('inst-1', ran({ unaskedNode: NODE }), false), [
    'The node of installation inst-1 is removed from this host.',
    `Core was not asked (--force): if Web still lists node ${NODE}, remove it there (Nodes); this host can no longer connect as that node.`,
  ]);
  const preview = outcomeLines('inst-1', ran({ unaskedNode: NODE }), true);
  assert.equal(preview[0], 'Changes would be made.', 'a dry run keeps the line scripts look for');
  assert.match(preview[1] ?? '', /^Core would not be asked \(--force\): if Web still lists node /);
  // Asked, or never registered: nothing more is said.
  assert.deepEqual(outcomeLines('inst-1', ran(), false), [
    'The node of installation inst-1 is removed from this host.',
  ]);
});

test('UNI-05 issue #39 an uninstall that keeps its record for a rerun does not say the node is removed', () => {
  const [line] = outcomeLines('inst-1', ran({ incomplete: true, unaskedNode: NODE }), false);
  assert.equal(
    line,
    'The node of installation inst-1 is not removed from this host completely: what is kept below stays, and a rerun of the uninstall finishes once it is gone.',
  );
});
