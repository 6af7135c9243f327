// BOOT-01 FLEET-02 (issue #39 item 10): `oac-node command --json` is one JSON document holding
// the line `command` prints without --json, word for word, and what it does; it passes
// docs/schema/command.json (and this project's strict variant of it). The command line run of it
// is test/host/command-json.test.ts.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { commandDocument } from '../../src/cli/json-contract.ts';
import { printCommand, type CommandArgs } from '../../src/cli/print-line.ts';
import { assertJsonDocument } from '../helpers/json-contract.ts';
import { printableJson } from '../../src/ui/printable.ts';

const SHA = 'a'.repeat(64);
const TOKEN = 'tok-0123456789abcdefghijklmnop';

async function printed(args: Partial<CommandArgs>): Promise<string> {
  let out = '';
  const stdin = Readable.from([Buffer.from(`${TOKEN}\n`)]) as Readable & { isTTY?: boolean };
  await printCommand(
    {
      'core-url': 'https://core.example.com',
      'installation-id': 'inst-1',
      'installer-sha256': SHA,
      uninstall: false,
      force: false,
      ...args,
    },
    {
      stdin,
      stdout: (text) => (out += text),
      fetchSha256: () => Promise.reject(new TypeError('the checksum was given')),
    },
  );
  return out;
}

test('BOOT-01 FLEET-02 issue #39 item 10 command --json: the printed line, whole, as one document of its schema', async () => {
  for (const args of [{}, { uninstall: true, force: true }] as Array<Partial<CommandArgs>>) {
    const text = await printed(args);
    assert.match(text, /^[^\n]+\n$/, 'the command prints one line');
    const document = commandDocument(args.uninstall === true, text);
    assert.deepEqual(document, {
      format: 1,
      command: args.uninstall === true ? 'uninstall' : 'install',
      line: text.slice(0, -1),
    });
    const json = `${printableJson(document)}\n`;
    assertJsonDocument('command.json', json, 'command --json');
    assert.equal((JSON.parse(json) as { line: string }).line, text.slice(0, -1), 'nothing masked');
  }
  // The install line carries the token (that is its purpose: BOOT-05), in JSON as in text.
  assert.ok(commandDocument(false, await printed({})).line.includes(TOKEN));
});

test('SEC-03 BOOT-05 command --json prints the line exactly as the text does, even when a proxy password occurs in it (no masking of the line)', async () => {
  const { redactor } = await import('../../src/redact.ts');
  const { commandDocumentLine } = await import('../../src/cli/json-contract.ts');
  const text = await printed({});
  redactor.add('sudo'); // a proxy password that happens to be a word of the line
  const line = (JSON.parse(commandDocumentLine(false, text)) as { line: string }).line;
  assert.equal(line, text.replace(/\n$/, ''));
  assert.ok(line.includes('sudo'), 'not masked');
});
