// OPS-05 (issue #25 item 4): `oac-node completion` for bash and zsh. The scripts are run by the
// real shells: each completes a command from its first letters and an option from its own
// command's list, and never offers a hidden option (install's older --uninstall).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { completionSpec } from '../../src/cli/commands/completion.ts';
import { bashCompletion, zshCompletion } from '../../src/cli/completion-script.ts';

let dir: string;
let bash: string;
let zsh: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oac-completion-'));
  const spec = await completionSpec();
  bash = join(dir, 'oac-node.bash');
  zsh = join(dir, 'oac-node.zsh');
  writeFileSync(bash, bashCompletion(spec));
  writeFileSync(zsh, zshCompletion(spec));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** What bash offers for the words typed so far (the last one being completed). */
function bashOffers(typed: string[]): string[] {
  const array = typed.map((w) => `'${w}'`).join(' ');
  const script = `source '${bash}'; COMP_WORDS=(oac-node ${array}); COMP_CWORD=${typed.length}; _oac_node; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['--norc', '-c', script], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

/** What zsh's function hands compadd (zsh filters by the prefix itself). */
function zshOffers(typed: string[]): string[] {
  const array = typed.map((w) => `'${w}'`).join(' ');
  const stubs = `compdef() { :; }; _files() { :; }; compadd() { [ "$1" = -- ] && shift; print -l -- "$@"; }`;
  const script = `${stubs}; source '${zsh}'; words=(oac-node ${array}); CURRENT=${typed.length + 1}; _oac_node`;
  return execFileSync('zsh', ['-f', '-c', script], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

test('OPS-05 bash completes a command, then that command own options, and no hidden one', () => {
  assert.deepEqual(bashOffers(['ins']), ['install']);
  assert.deepEqual(bashOffers(['s']), ['status', 'show-plan']);
  assert.deepEqual(bashOffers(['uninstall', '--installation']), ['--installation-id']);
  assert.deepEqual(bashOffers(['install', '--core-']), ['--core-url', '--core-pin']);
  assert.deepEqual(bashOffers(['install', '--unin']), [], 'the hidden --uninstall is not offered');
  assert.deepEqual(bashOffers(['show-plan', '--fi']), [], 'a positional is no option');
});

test('OPS-05 a global option before the command: bash and zsh still complete the command, then its options', () => {
  assert.deepEqual(bashOffers(['--no-color', 'ins']), ['install']);
  assert.deepEqual(bashOffers(['--no-color', 'install', '--core-']), ['--core-url', '--core-pin']);
  assert.deepEqual(bashOffers(['--no']), ['--no-color']);
  assert.ok(zshOffers(['--no-color', '']).includes('uninstall'));
  assert.deepEqual(zshOffers(['--no-color', 'status', '--']), [
    '--help',
    '--installation-id',
    '--json',
  ]);
});

test('OPS-05 zsh offers the commands, then the named command own options', () => {
  const commands = zshOffers(['']);
  for (const c of ['install', 'uninstall', 'status', 'completion'])
    assert.ok(commands.includes(c), c);
  assert.ok(!commands.includes('_prepare'), 'the internal command is not offered');
  const status = zshOffers(['status', '--']);
  assert.deepEqual(status, ['--help', '--installation-id', '--json']);
});

test('OPS-05 issue #39 a command that takes a file completes file names, not its options; completion completes the shells', () => {
  assert.deepEqual(bashOffers(['apply', '']), [], 'left to bash: file names (complete -o default)');
  assert.deepEqual(bashOffers(['show-plan', '']), []);
  assert.deepEqual(bashOffers(['apply', '--j']), ['--json'], 'an option still completes');
  assert.deepEqual(bashOffers(['completion', '']), ['bash', 'zsh', 'fish']);
  const stubs = `compdef() { :; }; _files() { print FILES; }; compadd() { [ "$1" = -- ] && shift; print -l -- "$@"; }`;
  const zshFor = (typed: string[]) =>
    execFileSync(
      'zsh',
      [
        '-f',
        '-c',
        `${stubs}; source '${zsh}'; words=(oac-node ${typed.map((w) => `'${w}'`).join(' ')}); CURRENT=${typed.length + 1}; _oac_node`,
      ],
      { encoding: 'utf8' },
    ).trim();
  assert.equal(zshFor(['apply', '']), 'FILES');
  assert.equal(zshFor(['completion', '']), 'bash\nzsh\nfish');
});

test('OPS-05 issue #39 fish: the script parses (fish -n), completes the commands, then a command own options, files for apply', async () => {
  const { completionSpec: spec } = await import('../../src/cli/commands/completion.ts');
  const { fishCompletion } = await import('../../src/cli/completion-script.ts');
  const fish = join(dir, 'oac-node.fish');
  writeFileSync(fish, fishCompletion(await spec()));
  execFileSync('fish', ['-n', fish]);
  const offers = (line: string) =>
    execFileSync('fish', ['--no-config', '-c', `source '${fish}'; complete -C '${line}'`], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0]);
  assert.deepEqual(offers('oac-node ins'), ['install']);
  assert.deepEqual(offers('oac-node status --j'), ['--json']);
  assert.ok(offers('oac-node install --core-').includes('--core-url'));
  assert.ok(!offers('oac-node install --unin').includes('--uninstall'), 'no hidden option');
  assert.deepEqual(offers('oac-node completion ').sort(), ['bash', 'fish', 'zsh']);
});
