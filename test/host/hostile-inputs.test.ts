// SEC-04, SEC-09 (issue #11 item 6): a table of hostile inputs, each given to the real built
// executable with --root on a fresh scratch tree, against the reference Core on loopback. Every
// row must end the same way: a non-zero exit, one line on stderr (`oac-node: …`, then only
// indented lines: the hint, or a provider file's problems one per line), no stack trace and no `internal error`, no raw control character on
// either stream, no secret (the token or credential the row used), and the scratch tree exactly
// as it was. The rows and their inputs live in hostile-rows.ts; this file runs them.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startCore } from '../helpers/core.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { issueToken } from '../helpers/node.ts';
import { makeScratchRoot, treeDiff, treeOf } from '../helpers/scratch-root.ts';
import { makeReleaseDir } from '../helpers/core.ts';
import {
  CORE_ID,
  CREDENTIAL,
  IDENTITY_ELSEWHERE,
  identityNamingAnotherCore,
  ROWS,
  runExe,
  type Ctx,
  type Row,
} from './hostile-rows.ts';

// Raw control characters on the terminal (LF ends lines and is allowed).
const RAW =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// The docker socket stand-in (manifest rows) is a socket: no content to compare. The installer
// lock (run/oac-node, tmpfs on a real host) stays once taken, empty: it is not the host's state.
const IGNORE = /^(var\/run\/docker\.sock|run\/oac-node(\/installer\.lock)?)$/;

let ctx: Ctx;
let release: Awaited<ReturnType<typeof makeReleaseDir>>;
before(async () => {
  release = await makeReleaseDir();
  const core = await startCore(['--release-dir', release.dir, '--installation-id', CORE_ID]);
  ctx = { exe: requireExecutable(), core, token: await issueToken(core), root: '' };
});
after(async () => {
  await ctx.core.stop();
  await release.cleanup();
});

test('SEC-04: the table holds at least 60 hostile inputs across every kind of input', () => {
  assert.ok(ROWS.length >= 60, `${ROWS.length} rows`);
  const kinds = new Set(ROWS.map((r) => r.kind));
  for (const kind of [
    'argument',
    'stdin',
    'journal',
    'identity',
    'provider file',
    'env file',
    'manifest',
    'Core',
    'environment',
  ])
    assert.ok(kinds.has(kind as Row['kind']), kind);
});

for (const row of ROWS) {
  test(`${row.req}: ${row.kind}: ${row.name}`, async () => {
    const root = makeScratchRoot();
    const c: Ctx = { ...ctx, root };
    const cleanup: Array<() => Promise<void> | void> = [() => rmSync(root, { recursive: true })];
    try {
      const undo = await row.setup?.(c);
      if (typeof undo === 'function') cleanup.push(undo);
      if (row.fault !== undefined) {
        const armed = await c.core.coreApi('PUT', '/__fixture/faults', row.fault(c));
        assert.equal(armed.status, 204, JSON.stringify(armed.body));
        cleanup.push(async () => void (await c.core.coreApi('DELETE', '/__fixture/faults')));
      }
      const initial = treeOf(root, IGNORE);
      const r = await runExe(c.exe, row.args(c), {
        stdin: row.stdin?.(c) ?? '',
        env: row.env?.(c) ?? {},
      });
      const shown = `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
      assert.ok(r.status !== null && r.status !== 0, `non-zero exit: ${shown}`);
      const lines = r.stderr.replace(/\n$/, '').split('\n');
      assert.match(lines[0] ?? '', /^oac-node: \S/, `one error line: ${shown}`);
      // One error line; under it only indented lines of ours (a hint, a file's problems), in
      // which any line break from outside is escaped.
      assert.ok(
        lines.slice(1).every((l) => l.startsWith('  ')),
        `one line (and a hint): ${shown}`,
      );
      assert.match(lines[0] ?? '', row.expect, shown);
      const both = r.stdout + r.stderr;
      assert.doesNotMatch(both, /internal error|^\s+at /m, `no stack: ${shown}`);
      assert.doesNotMatch(both, RAW, `SEC-09 no raw control character: ${JSON.stringify(both)}`);
      for (const secret of [c.token, ...(row.secrets?.(c) ?? [])])
        assert.ok(!both.includes(secret), `SEC-03 no secret: ${shown}`);
      assert.deepEqual(treeDiff(initial, treeOf(root, IGNORE)), {
        added: [],
        removed: [],
        changed: [],
      });
    } finally {
      for (const step of cleanup.reverse()) await step();
    }
  });
}

test("SEC-04 status with an identity naming another Core than the record: Core's state unknown, saying why; nothing asked there, nothing changed", async () => {
  const root = makeScratchRoot();
  try {
    identityNamingAnotherCore({ ...ctx, root });
    const initial = treeOf(root, IGNORE);
    const r = await runExe(ctx.exe, ['status', '--installation-id', CORE_ID, '--root', root], {
      stdin: '',
      env: {},
    });
    const shown = `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
    // 5: Core could not be asked (issue #25's status exit statuses).
    assert.equal(r.status, 5, shown);
    const core = /^Core: unknown \((.*)\)$/m.exec(r.stdout);
    assert.ok(core !== null, shown);
    assert.match(core[1] ?? '', IDENTITY_ELSEWHERE, shown);
    assert.match(r.stdout, /^Node half: not checked \(The node's identity /m, shown);
    assert.ok(!(r.stdout + r.stderr).includes(CREDENTIAL), `SEC-03 no credential: ${shown}`);
    assert.deepEqual(treeDiff(initial, treeOf(root, IGNORE)), {
      added: [],
      removed: [],
      changed: [],
    });
  } finally {
    rmSync(root, { recursive: true });
  }
});
