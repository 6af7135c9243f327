// SEC-10 and issue #10's first defect: `uninstall --installation-id ..` once removed the whole of
// /usr/local/lib (`/usr/local/lib/oac-node/..` passed as this installation's program
// directory). Every command parses the ID once, in src/layout.ts, and refuses anything else with
// one line before it touches the host: the built executable is run with --root on a scratch
// tree that holds a bystander /usr/local/lib/python3, and the tree must stay as it was.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { requireExecutable } from '../helpers/executable.ts';
import { makeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

let exe: string;
let root: string;
before(() => {
  exe = requireExecutable();
  root = makeScratchRoot();
  // What a `..` would have reached: the program root's parent, and a record beside the journal.
  mkdirSync(join(root, 'usr/local/lib/oac-node'), { recursive: true });
  mkdirSync(join(root, 'etc/oac-node'), { recursive: true, mode: 0o700 });
  writeFileSync(join(root, 'etc/oac-node/.json'), '{}\n');
});
after(() => rmSync(root, { recursive: true, force: true }));

const BAD = ['..', '.', '../x', '-x', 'a/b', '.hidden', 'x'.repeat(65), 'white space', ''];
const COMMANDS = [
  ['install', '--core-url', 'http://127.0.0.1:9'],
  ['uninstall'],
  ['uninstall', '--force'],
  ['status'],
  ['command', '--core-url', 'http://127.0.0.1:9'],
];

for (const command of COMMANDS) {
  test(`SEC-10 ${command.join(' ')} refuses every installation ID outside the rule, in one line, changing nothing`, () => {
    const before = treeOf(root);
    for (const id of BAD) {
      const r = spawnSync(exe, [...command, `--installation-id=${id}`, '--root', root], {
        input: '',
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      assert.equal(r.status, 64, `${id}: ${r.stdout}${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${id}: one line, got ${r.stderr}`);
      assert.match(lines[0] ?? '', /installation[ -]id/i, id);
      assert.deepEqual(treeOf(root), before, `${id}: the tree is unchanged`);
    }
  });
}

test('SEC-10 a valid ID still reaches the command (status names the missing record)', () => {
  const r = spawnSync(exe, ['status', '--installation-id', 'inst-1', '--root', root], {
    encoding: 'utf8',
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /inst-1/);
});
