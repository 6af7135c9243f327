// BOOT-01 FLEET-02 (issue #39 item 10): `oac-node command --json`, the command line run with tsx
// as test/host/one-liner.test.ts runs `command`: one JSON document holding the very line the
// command prints without --json, valid by docs/schema/command.json; a bad command line is one
// error event, as every command that takes --json gives it. --installer-sha256 is given, so
// nothing is fetched.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { repoRoot } from '../helpers/executable.ts';
import { assertJsonDocument, assertJsonEvents } from '../helpers/json-contract.ts';

const TOKEN = 'tok-0123456789abcdefghijklmnop';
const BASE = [
  ...['--core-url', 'https://core.example.com', '--installation-id', 'inst-1'],
  ...['--installer-sha256', 'c'.repeat(64)],
];

function cli(args: string[], stdin: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'command', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    input: stdin,
    env: { PATH: process.env.PATH },
  });
}

test('BOOT-01 FLEET-02 issue #39 item 10 command --json prints one document with the line command prints', () => {
  for (const [extra, stdin, command] of [
    [[], `${TOKEN}\n`, 'install'],
    [['--uninstall'], '', 'uninstall'],
  ] as const) {
    const text = cli([...BASE, ...extra], stdin);
    assert.equal(text.status, 0, text.stderr);
    const json = cli([...BASE, ...extra, '--json'], stdin);
    assert.equal(json.status, 0, json.stderr);
    assertJsonDocument('command.json', json.stdout, `command --json ${extra.join(' ')}`);
    assert.deepEqual(JSON.parse(json.stdout), {
      format: 1,
      command,
      line: text.stdout.replace(/\n$/, ''),
    });
    assert.equal(json.stderr, '');
  }
});

test('FLEET-02 issue #39 item 10 command --json: a bad command line is one error event, exit 64', () => {
  const bad = cli(['--json', '--core-url', 'core.example.com:8443', '--installation-id', 'x'], '');
  assert.equal(bad.status, 64, bad.stderr);
  assertJsonEvents(bad.stdout, 'command --json');
  const [event] = bad.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string });
  assert.equal(event?.type, 'error');
  assert.equal(bad.stdout.trim().split('\n').length, 1);
});
