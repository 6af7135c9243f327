// DL-01, RERUN-01 (issue #13): a rerun takes a file's SHA-256 from the digest cache only while
// the file's stamp (device, inode, size, mtime, ctime) is the one recorded, so a converged host
// is not read again, and every change is still found: a write in place with the old size and
// mtime put back, a file renamed over it, a removed file. A stamp too fresh to trust (racy) is
// never kept. Root's cache lives in the journal and is written only when it changed.
import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createHash } from 'node:crypto';
import { Journal } from '../../records/journal.ts';
import { DigestIndex } from '../../src/host/digest-index.ts';
import { Host } from '../../src/host/host.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { loadDigestFile, saveDigestFile } from '../../src/node/digest-file.ts';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'oac-digest-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** A clock well past the file's ctime: its stamp counts as settled. */
const later = (path: string) => () => statSync(path, { bigint: true }).ctimeNs + 5_000_000_000n;

/** A file written and an index that has hashed it once, settled. */
async function hashedOnce(name: string, text: string) {
  const path = join(dir, name);
  writeFileSync(path, text);
  const first = new DigestIndex({}, { nowNs: later(path) });
  assert.equal(await first.sha256(path), sha(text));
  assert.deepEqual(first.hashed, [path]);
  return { path, entries: await first.entries() };
}

test('issue #13 DL-01: an unchanged file is not read again; its recorded digest is used', async () => {
  const { path, entries } = await hashedOnce('same', 'runtime bytes');
  const again = new DigestIndex(entries, { nowNs: later(path) });
  assert.equal(await again.sha256(path), sha('runtime bytes'));
  assert.deepEqual(again.hashed, [], 'nothing hashed');
  assert.equal(await again.changed(), false, 'nothing to write back');
});

test('issue #13 RERUN-01: a write in place with its size and mtime put back is still found', async () => {
  const { path, entries } = await hashedOnce('tampered', 'good bytes');
  const { atime, mtime } = statSync(path);
  writeFileSync(path, 'evil bytes'); // same length
  utimesSync(path, atime, mtime); // what an attacker would do: ctime moves all the same
  const again = new DigestIndex(entries, { nowNs: later(path) });
  assert.equal(await again.sha256(path), sha('evil bytes'));
  assert.deepEqual(again.hashed, [path]);
  assert.equal(await again.changed(), true);
});

test('issue #13 RERUN-01: a file renamed over it, or removed, is found', async () => {
  const { path, entries } = await hashedOnce('renamed', 'first');
  writeFileSync(`${path}.new`, 'other');
  const { atime, mtime } = statSync(path);
  utimesSync(`${path}.new`, atime, mtime);
  renameSync(`${path}.new`, path);
  const again = new DigestIndex(entries, { nowNs: later(path) });
  assert.equal(await again.sha256(path), sha('other'));
  assert.deepEqual(again.hashed, [path]);

  rmSync(path);
  const gone = new DigestIndex(await again.entries(), { nowNs: () => 0n });
  assert.equal(await gone.sha256(path), undefined);
  assert.deepEqual(await gone.entries(), {}, "a removed file's entry falls out");
});

test('issue #13: a stamp too fresh to trust is not kept (racy), and remember() waits it out', async () => {
  const path = join(dir, 'fresh');
  writeFileSync(path, 'just written');
  const ctime = statSync(path, { bigint: true }).ctimeNs;
  const racy = new DigestIndex({}, { nowNs: () => ctime + 1_000_000n }); // 1 ms after the write
  assert.equal(await racy.sha256(path), sha('just written'));
  assert.deepEqual(await racy.entries(), {}, 'not kept: a write in the same tick would hide');

  writeFileSync(path, 'downloaded');
  const written = new DigestIndex();
  await written.remember(path, sha('downloaded'));
  const entries = await written.entries();
  assert.equal(entries[path]?.sha256, sha('downloaded'), 'kept once settled');
  const next = new DigestIndex(entries);
  assert.equal(await next.sha256(path), sha('downloaded'));
  assert.deepEqual(next.hashed, []);
});

test('issue #13: remember() waits out a stamp up to 1 ms ahead of Date.now() (its ms grain)', async () => {
  const path = join(dir, 'same-ms');
  writeFileSync(path, 'written in this ms');
  const ctime = statSync(path, { bigint: true }).ctimeNs;
  // Date.now() truncates to the ms: right after the write, "now" may read up to 1 ms before the
  // ctime. The first reading says so; later ones run on the real clock from there.
  let start: bigint | undefined;
  const clock = () => {
    start ??= process.hrtime.bigint();
    return ctime - 900_000n + (process.hrtime.bigint() - start);
  };
  const index = new DigestIndex({}, { nowNs: clock });
  await index.remember(path, sha('written in this ms'));
  const entries = await index.entries();
  assert.equal(
    entries[path]?.sha256,
    sha('written in this ms'),
    'kept: waited, not taken for a jump',
  );
});

test('issue #13: root keeps its digests in the journal, written only when they changed', async () => {
  const root = mkdtempSync(join(dir, 'root-'));
  const host = new Host(root);
  const id = parseInstallationId('digest-test');
  const program = join(dir, 'program');
  writeFileSync(program, 'the node program');
  utimesSync(program, new Date(2020, 0, 1), new Date(2020, 0, 1));
  await new Promise((resolve) => setTimeout(resolve, 30)); // its ctime settles

  const journal = await Journal.open(host, id, 'https://core.example');
  await journal.record('program', { kind: 'file', name: program, ownership: 'owned', props: {} });
  assert.equal(await journal.digests.sha256(program), sha('the node program'));
  await journal.saveDigests();
  const file = join(root, 'etc/oac-node/digest-test.json');
  const written = readFileSync(file, 'utf8');
  assert.match(written, /"sha256": "[0-9a-f]{64}"/);

  const rerun = await Journal.open(host, id, 'https://core.example');
  assert.equal(await rerun.digests.sha256(program), sha('the node program'));
  assert.deepEqual(rerun.digests.hashed, [], 'the rerun did not read the program');
  await rerun.saveDigests();
  assert.equal(readFileSync(file, 'utf8'), written, 'an unchanged cache is not written');
});

test("issue #13: the node half's cache keeps entries of files a run did not look at while they exist", async () => {
  // A rollout reconciles one generation's files; the others' entries must survive it, and go
  // once their files do.
  const root = mkdtempSync(join(dir, 'node-'));
  const host = new Host(root);
  const names = layout(parseInstallationId('digest-node'));
  const state = host.path(names.stateDir);
  mkdirSync(join(state, 'files'), { recursive: true });
  const [a, b] = [join(state, 'files', 'a'), join(state, 'files', 'b')];
  writeFileSync(a, 'generation 1');
  writeFileSync(b, 'generation 2');
  await new Promise((resolve) => setTimeout(resolve, 30)); // their ctimes settle

  const install = await loadDigestFile(host, names.stateDir);
  await install.sha256(a);
  await install.sha256(b);
  await saveDigestFile(host, names.stateDir, install);

  const rollout = await loadDigestFile(host, names.stateDir);
  assert.equal(await rollout.sha256(b), sha('generation 2'));
  assert.deepEqual(rollout.hashed, [], 'b came from the cache');
  assert.equal(await rollout.changed(), false, 'a kept though unused: nothing to write');

  rmSync(a);
  const after = await loadDigestFile(host, names.stateDir);
  await after.sha256(b);
  await saveDigestFile(host, names.stateDir, after);
  const last = await loadDigestFile(host, names.stateDir);
  assert.deepEqual(Object.keys(await last.entries()), [b], "a's entry went with its file");
  assert.equal(await last.sha256(b), sha('generation 2'));
  assert.deepEqual(last.hashed, []);
});
