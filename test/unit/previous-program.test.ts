// UPG-02, issue #38: the program an upgrade replaces is kept by a step of the plan
// (src/installation/previous-program.ts), in exactly the cases the installer kept it before the
// step existed: the program on the host is the one the journal records, and this run installs
// another; never for a repair, a program the record does not know, the same program, or while
// an earlier attempt's kept program is still there (that one is the proven one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JournalResource } from '../../records/journal.ts';
import {
  previousProgramDriver,
  type PreviousProgramActual,
} from '../../src/installation/previous-program.ts';
import type { PreviousProgramResource } from '../../src/resources/resources.ts';

const OLD = 'a'.repeat(64);
const NEW = 'b'.repeat(64);
const KEPT: PreviousProgramResource = {
  ...{ kind: 'previous-program', key: 'program-previous', title: 'Kept', phase: 'program' },
  ...{
    path: '/usr/local/lib/oac-node/x/oac-node.previous',
    program: '/usr/local/lib/oac-node/x/oac-node',
  },
  sha256: NEW,
};
const program = (sha256: string): JournalResource => ({
  kind: 'file',
  name: KEPT.program,
  ownership: 'owned',
  props: { mode: 0o755, sha256, version: '0.1.0' },
});
const actual = (over: Partial<PreviousProgramActual>): PreviousProgramActual => ({
  onHost: OLD,
  recorded: { program: program(OLD), service: undefined },
  pending: false,
  ...over,
});
const kind = (a: PreviousProgramActual, wanted = NEW) =>
  previousProgramDriver.diff({ ...KEPT, sha256: wanted }, a, new Map()).kind;

test('UPG-02 an upgrade keeps the recorded program before it replaces it, naming its version', () => {
  const action = previousProgramDriver.diff(KEPT, actual({}), new Map());
  assert.equal(action.kind, 'create');
  assert.equal(action.detail, `keep oac-node 0.1.0 as ${KEPT.path} until the new program is ready`);
});

test('UPG-02 nothing is kept for a rerun, a repair, an unknown program, a missing one, or while an earlier keep is pending', () => {
  assert.equal(kind(actual({}), OLD), 'skip', 'the same program: no upgrade');
  assert.equal(
    kind(actual({ onHost: 'c'.repeat(64) })),
    'skip',
    'a repair: the file is not the recorded one',
  );
  assert.equal(kind(actual({ recorded: undefined })), 'skip', 'no record of the program');
  assert.equal(
    kind(actual({ onHost: undefined })),
    'skip',
    'no program there (or no regular file)',
  );
  assert.equal(kind(actual({ pending: true })), 'keep', "the earlier attempt's is the proven one");
});
