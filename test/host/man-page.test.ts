// DECL-01 OPS-06 (issue #39): the manual page is good to have, never a reason to refuse an
// install, and never put over what others have: someone else's oac-node.1, a file where man1
// belongs or no /usr/local/share/man leave it out (and nothing else changes there); a man1 the
// host had stays after the uninstall, one the install made goes.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { installRootHalf, programFor, uninstallRootHalf } from '../helpers/root-half.ts';
import { makeScratchRoot, removeScratchRoot } from '../helpers/scratch-root.ts';
import { MAN_PAGE_MARK } from '../../src/resources/man-page.ts';

const MAN1 = 'usr/local/share/man/man1';
const PAGE = `${MAN1}/oac-node.1`;

async function withRoot(prepare: (root: string) => void, check: (root: string) => Promise<void>) {
  const root = makeScratchRoot();
  try {
    prepare(root);
    await installRootHalf(root, programFor(root));
    await check(root);
  } finally {
    removeScratchRoot(root);
  }
}

test("DECL-01 someone else's oac-node.1 is left as it is, and the install goes on", async () => {
  await withRoot(
    (root) => {
      mkdirSync(join(root, MAN1), { recursive: true });
      writeFileSync(join(root, PAGE), '.TH SOMEONE ELSE\n');
    },
    async (root) => {
      assert.equal(readFileSync(join(root, PAGE), 'utf8'), '.TH SOMEONE ELSE\n');
      assert.ok(existsSync(join(root, 'usr/local/sbin/oac-node')), 'the rest is installed');
      await uninstallRootHalf(root);
      assert.equal(readFileSync(join(root, PAGE), 'utf8'), '.TH SOMEONE ELSE\n', 'and kept');
      assert.ok(existsSync(join(root, MAN1)), 'with the host man1');
    },
  );
});

test('DECL-01 a file where man1 belongs, or no /usr/local/share/man: the page is left out, nothing made there', async () => {
  await withRoot(
    (root) => writeFileSync(join(root, MAN1), 'not a directory'),
    async (root) => {
      assert.equal(readFileSync(join(root, MAN1), 'utf8'), 'not a directory');
      assert.ok(existsSync(join(root, 'usr/local/sbin/oac-node')));
    },
  );
  await withRoot(
    (root) => rmSync(join(root, 'usr/local/share'), { recursive: true }),
    async (root) => {
      assert.equal(existsSync(join(root, 'usr/local/share')), false, 'no parent made (umask)');
      assert.ok(existsSync(join(root, 'usr/local/sbin/oac-node')));
    },
  );
});

test('DECL-01 UNI-02 a man1 the install made goes with the page; one the host had stays', async () => {
  await withRoot(
    () => undefined,
    async (root) => {
      assert.ok(readFileSync(join(root, PAGE), 'utf8').split('\n').includes(MAN_PAGE_MARK));
      assert.equal(statSync(join(root, MAN1)).mode & 0o777, 0o755);
      await uninstallRootHalf(root);
      assert.equal(existsSync(join(root, MAN1)), false);
      assert.ok(existsSync(join(root, 'usr/local/share/man')), 'the host directory stays');
    },
  );
  await withRoot(
    (root) => mkdirSync(join(root, MAN1)),
    async (root) => {
      await uninstallRootHalf(root);
      assert.equal(existsSync(join(root, PAGE)), false, 'the page goes');
      assert.ok(existsSync(join(root, MAN1)), 'the host man1 stays');
    },
  );
});
