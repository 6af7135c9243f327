// OPS-06 (issue #39): the manual page is generated from the command table, so it cannot drift:
// the copies in the repository are what scripts/man-page.ts makes now, each public command's
// options are in it, and the page the installer writes names the program's version and holds
// the mark that makes it provably the installer's, and no version (a rolled back upgrade
// leaves it as it was) (src/resources/man-page.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MAN_FILES, manPageText } from '../../scripts/man-page.ts';
import { MAN_PAGE_MARK, renderManPage } from '../../src/resources/man-page.ts';
import { MAN_PAGE_TEMPLATE } from '../../src/resources/man-page-text.ts';
import { completionSpec } from '../../src/cli/commands/completion.ts';

test('OPS-06 the manual page in the repository is what the command table makes (npm run docs:man)', async () => {
  const page = await manPageText();
  assert.equal(MAN_PAGE_TEMPLATE, page, 'src/resources/man-page-text.ts: npm run docs:man');
  assert.equal(readFileSync(MAN_FILES.doc, 'utf8'), page);
});

test('OPS-06 every public command and each of its options is in the page man renders', async () => {
  const rendered = execFileSync('man', ['-l', '-'], {
    input: renderManPage(),
    encoding: 'utf8',
    env: { PATH: process.env.PATH, MANWIDTH: '120', LANG: 'C.UTF-8' },
  });
  const spec = await completionSpec();
  for (const command of spec.commands) {
    assert.match(rendered, new RegExp(`^ {3}${command}$`, 'm'), command);
    for (const option of spec.options[command] ?? [])
      assert.ok(rendered.includes(option), `${command} ${option}`);
  }
  assert.ok(renderManPage().split('\n').includes(MAN_PAGE_MARK), 'the mark is a line of its own');
  assert.match(renderManPage(), /^\.TH OAC\\-NODE 1 "" "oac\\-node" "oac\\-node"$/m, 'no version');
});
