// FLEET-02, issue #39 item 3: one exit-status table (src/exit-statuses.ts). The docs carry it as
// the code generates it, each command's --help prints exactly its own rows, and every status
// the code can end with is in it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT_TABLE_DOCS, docText, withExitTable } from '../../scripts/exit-table.ts';
import { EXIT_TABLE, exitRowsOf, type ExitSource } from '../../src/exit-statuses.ts';
import { EXIT, LINE_EXIT } from '../../src/errors.ts';
import { STATUS_EXIT } from '../../installer/status.ts';
import { runCli } from '../../src/cli/main.ts';
import { COMMAND_SUMMARIES } from '../../src/cli/summaries.ts';

test('FLEET-02 docs/messages.md and docs/automation.md hold the exit-status table the code generates', () => {
  for (const doc of EXIT_TABLE_DOCS) {
    const text = docText(doc);
    assert.equal(withExitTable(text, doc), text, `docs/${doc}: npm run docs:exit`);
    for (const row of EXIT_TABLE)
      assert.ok(text.includes(row.meaning), `docs/${doc}: ${row.meaning}`);
  }
});

/** What `oac-node <command> --help` prints (yargs writes help with console.log). */
async function helpOf(command: string): Promise<string> {
  const printed: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => printed.push(parts.join(' '));
  try {
    const status = await runCli([command, '--help'], { stderr: () => {}, stdout: () => {} });
    assert.equal(status, EXIT.ok, `${command} --help`);
  } finally {
    console.log = log;
  }
  return printed.join('\n');
}

const unwrapped = (text: string) => text.replace(/\s+/g, ' ');

test("FLEET-02 each command's --help lists its own exit statuses from the table, and no other's", async () => {
  const commands = Object.keys(COMMAND_SUMMARIES).filter((c) => !c.startsWith('_'));
  for (const command of commands) {
    const help = await helpOf(command);
    const section = unwrapped(help.slice(help.indexOf('Exit status:')));
    assert.ok(help.includes('Exit status:'), `${command} --help has an exit-status section`);
    const own = exitRowsOf(command as ExitSource);
    for (const row of own)
      assert.ok(section.includes(`${row.status} ${row.meaning}`), `${command}: ${row.meaning}`);
    for (const row of EXIT_TABLE.filter((r) => !own.includes(r)))
      assert.ok(!section.includes(row.meaning), `${command} --help: not ${row.meaning}`);
  }
});

test('FLEET-02 every status the code ends with has its row: the commands, status and the pasted line', () => {
  const statuses = (who: ExitSource) => new Set(exitRowsOf(who).map((r) => r.status));
  for (const value of Object.values(STATUS_EXIT))
    assert.ok(statuses('status').has(value), `status exits ${value}`);
  for (const value of Object.values(LINE_EXIT))
    assert.ok(statuses('the pasted line').has(value), `the line exits ${value}`);
  const everywhere = new Set(EXIT_TABLE.map((r) => r.status));
  for (const value of Object.values(EXIT)) assert.ok(everywhere.has(value), `exit ${value}`);
  assert.ok(statuses('apply').has(EXIT.planStale));
  assert.ok(statuses('run').has(EXIT.removed));
});
