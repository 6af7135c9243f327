// SEC-02, SEC-04, SEC-05: root reads the node account's own files (identity, provider file,
// serving record) while it holds the installer lock. Whatever that account plants in their place
// must neither hang root nor be followed: a FIFO, a link, a hard link, a file of another owner, a
// file too large to be one of ours. Each reads as "no such file", at once.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, linkSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Host } from '../../src/host/host.ts';

const UID = 65532;
let root: string;
let host: Host;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'oac-node-files-'));
  host = new Host(root);
  writeFileSync(join(root, 'secret'), 'root only');
});
after(() => rmSync(root, { recursive: true, force: true }));

/** readOwnedBy, or 'hung' when it takes over two seconds. */
async function readWithin(name: string): Promise<Buffer | undefined | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 2000)));
  try {
    return await Promise.race([host.readOwnedBy(`/${name}`, UID), hung]);
  } finally {
    clearTimeout(timer);
  }
}

function owned(name: string): string {
  const path = join(root, name);
  chownSync(path, UID, UID);
  return path;
}

test('SEC-04 control: a regular file of the node account is read', async () => {
  writeFileSync(join(root, 'identity.json'), '{"format":1}');
  owned('identity.json');
  assert.equal((await readWithin('identity.json'))?.toString(), '{"format":1}');
});

test('SEC-05 a FIFO planted as the node file does not hang root: read as absent', async () => {
  execFileSync('mkfifo', [join(root, 'fifo.json')]);
  owned('fifo.json');
  assert.equal(await readWithin('fifo.json'), undefined);
});

test('SEC-02 a symlink planted as the node file is not followed', async () => {
  symlinkSync('secret', join(root, 'link.json'));
  assert.equal(await readWithin('link.json'), undefined);
});

test('SEC-02 a hard link to another file is not read', async () => {
  writeFileSync(join(root, 'other'), 'x');
  owned('other');
  linkSync(join(root, 'other'), join(root, 'hard.json'));
  assert.equal(await readWithin('hard.json'), undefined);
});

test("SEC-02 a file of another owner (root's) is not read", async () => {
  writeFileSync(join(root, 'roots.json'), '{}');
  assert.equal(await readWithin('roots.json'), undefined);
});

test('SEC-04 a file over 1 MiB is not read into memory', async () => {
  writeFileSync(join(root, 'big.json'), '');
  execFileSync('truncate', ['-s', '8G', join(root, 'big.json')]);
  owned('big.json');
  assert.equal(await readWithin('big.json'), undefined);
});
