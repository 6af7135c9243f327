// OPS-06 (issue #39 item 6): what the last run did is kept for the operator: the record notes the
// run that changed the host (install, rerun, upgrade, roll back, with the versions), a run that
// changed nothing writes nothing (RERUN-01), the run's events are kept root-only and bounded
// beside it in /var/log/oac-node, and the uninstall takes them away with the record (UNI-02).
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Journal } from '../../records/journal.ts';
import { RUN_LOG_MAX_BYTES, keepRunLog, noteLastRun, runStart } from '../../installer/last-run.ts';
import { Host } from '../../src/host/host.ts';
import { KEYS } from '../../src/installation/desired.ts';
import { oacError } from '../../src/messages.ts';
import {
  CORE,
  ID,
  installRootHalf,
  names,
  programFor,
  uninstallRootHalf,
} from '../helpers/root-half.ts';
import { makeScratchRoot, removeScratchRoot } from '../helpers/scratch-root.ts';
import { VERSION } from '../../src/version.ts';

async function withProgram(journal: Journal, version: string): Promise<void> {
  const entry = journal.get(KEYS.program);
  await journal.record(KEYS.program, {
    kind: 'file',
    name: names.program,
    ownership: 'owned',
    props: { ...(entry?.props ?? {}), version },
  });
}

test('OPS-06 the record notes the run that changed the host: install, rerun, upgrade, downgrade, roll back; an unchanged run writes nothing', async () => {
  const root = makeScratchRoot();
  try {
    const host = new Host(root);
    const journal = await Journal.open(host, ID, CORE);
    const first = runStart(journal);
    assert.deepEqual(first, { fresh: true, before: null });
    await withProgram(journal, '0.1.0');
    assert.equal(await noteLastRun(journal, first, { changed: true }), true);
    assert.deepEqual(
      { ...journal.snapshot.last_run, at: undefined },
      { at: undefined, run: 'install', version: '0.1.0', from: null, outcome: 'done' },
    );
    const record = () => readFileSync(join(root, names.journal), 'utf8');
    const before = record();
    assert.equal(await noteLastRun(journal, runStart(journal), { changed: false }), false);
    assert.equal(record(), before, 'a run that changed nothing writes nothing (RERUN-01)');

    const rerun = runStart(journal);
    assert.equal(await noteLastRun(journal, rerun, { changed: true }), true);
    assert.equal(journal.snapshot.last_run?.run, 'rerun');

    const upgrade = runStart(journal);
    await withProgram(journal, '0.2.0');
    await noteLastRun(journal, upgrade, { changed: true });
    assert.deepEqual(
      [journal.snapshot.last_run?.run, journal.snapshot.last_run?.from],
      ['upgrade', '0.1.0'],
    );

    const downgrade = runStart(journal);
    await withProgram(journal, '0.1.0');
    await noteLastRun(journal, downgrade, { changed: true });
    assert.deepEqual(
      [journal.snapshot.last_run?.run, journal.snapshot.last_run?.from],
      ['downgrade', '0.2.0'],
    );

    // An upgrade to this program (VERSION) that was rolled back: the kept program is back (its
    // version recorded again as the upgrade's roll back does), and the note names both.
    await withProgram(journal, '0.0.9');
    const failed = runStart(journal);
    await withProgram(journal, VERSION);
    await withProgram(journal, '0.0.9');
    const rolledBack = oacError('upgrade_rolled_back', {
      failed: VERSION,
      why: 'x',
      previous: '0.0.9',
      unit: names.unitName,
    });
    await noteLastRun(journal, failed, { changed: true, error: rolledBack });
    const last = (await Journal.open(host, ID, CORE)).snapshot.last_run;
    assert.deepEqual(
      [last?.run, last?.from, last?.version, last?.outcome],
      ['roll back', VERSION, '0.0.9', 'failed'],
      'as read back from the file: the version tried, then the one restored',
    );
  } finally {
    removeScratchRoot(root);
  }
});

test("OPS-06 SEC-03 the run's events are kept root-only (0600 in a 0700 directory), their end when they are long, and the uninstall removes them with the record", async () => {
  const root = makeScratchRoot();
  try {
    const host = new Host(root);
    await installRootHalf(root, programFor(root));
    const lines = Array.from(
      { length: 5000 },
      (_, i) => `${JSON.stringify({ type: 'note', i })}\n`,
    );
    await keepRunLog(host, names, lines);
    const log = join(root, names.lastRunLog);
    assert.equal(statSync(log).mode & 0o777, 0o600);
    assert.equal(statSync(join(root, 'var/log/oac-node')).mode & 0o777, 0o700);
    const kept = readFileSync(log, 'utf8');
    assert.ok(Buffer.byteLength(kept) <= RUN_LOG_MAX_BYTES, 'bounded');
    assert.ok(kept.endsWith(lines.at(-1) ?? '-'), 'the end of the run is kept');
    assert.ok(kept.startsWith('{"type":"note"'), 'whole lines only');
    await uninstallRootHalf(root);
    assert.equal(existsSync(log), false, 'the events go with the record');
    assert.equal(existsSync(join(root, 'var/log/oac-node')), false, 'and their directory');
  } finally {
    removeScratchRoot(root);
  }
});

test('OPS-06 SEC-06 a /var/log/oac-node someone else made (or opened to others) is not written into; the uninstall goes on past a file in its place', async () => {
  const root = makeScratchRoot();
  try {
    const host = new Host(root);
    await installRootHalf(root, programFor(root));
    const dir = join(root, 'var/log/oac-node');
    mkdirSync(dir, { mode: 0o775 });
    chmodSync(dir, 0o775);
    await assert.rejects(keepRunLog(host, names, ['{}\n']), /run's events are not kept/);
    assert.equal(existsSync(join(root, names.lastRunLog)), false, 'nothing written there');
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'someone else');
    await uninstallRootHalf(root);
    assert.equal(
      existsSync(join(root, names.journal)),
      false,
      'the record is removed all the same',
    );
    assert.equal(readFileSync(dir, 'utf8'), 'someone else', 'and the file left alone');
  } finally {
    removeScratchRoot(root);
  }
});
