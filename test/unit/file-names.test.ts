// Issue #38 item 5: one name per concept. No two source files share a base name, but for the
// same role in parallel folders, each pair listed here with why (and said in the files): a
// newcomer who opens `context.ts` must not find three.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

const PARALLEL: Record<string, string[]> = {
  // Each half's reconcile loop: root's with the journal, the node account's without.
  'reconcile.ts': ['src/installation/reconcile.ts', 'src/node/reconcile.ts'],
  // The driver shape: the core's generic one, and the domain's contexts and typing of it.
  'driver.ts': ['src/core/driver.ts', 'src/resources/driver.ts'],
  // The provider file: its format (the node library), and its kind's module (named by kind).
  'provider-file.ts': ['src/node/drivers/provider-file.ts', 'src/node/provider-file.ts'],
};

test("issue #38 no two source files share a base name, but a verb's command module and its work, and the parallel pairs listed", () => {
  const files = ['src', 'installer', 'uninstaller', 'records'].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(dir, name)),
  );
  const byName = new Map<string, string[]>();
  for (const file of files)
    byName.set(basename(file), [...(byName.get(basename(file)) ?? []), file]);
  for (const [name, group] of byName) {
    if (group.length === 1) continue;
    const listed = PARALLEL[name];
    if (listed !== undefined) {
      assert.deepEqual(group.sort(), listed, name);
      for (const file of group)
        assert.match(
          readFileSync(join(root, file), 'utf8'),
          /\bsame role\b|parallel/i,
          `${file} says so`,
        );
      continue;
    }
    // A command module (src/cli/commands/<verb>.ts) shares its verb's name with the one
    // module that does the work (installer/install.ts, src/agent/run.ts …): two, no more.
    const commands = group.filter((file) => file.startsWith(join('src', 'cli', 'commands')));
    assert.equal(commands.length, 1, `${name}: ${group.join(', ')}`);
    assert.equal(group.length, 2, `${name}: ${group.join(', ')}`);
  }
});

test('issue #38 a command module parses, calls and renders: 80 lines at most', () => {
  const dir = join(root, 'src', 'cli', 'commands');
  for (const name of readdirSync(dir)) {
    const lines = readFileSync(join(dir, name), 'utf8').trimEnd().split('\n').length;
    assert.ok(lines <= 80, `src/cli/commands/${name}: ${lines} lines`);
  }
});
