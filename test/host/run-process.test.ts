// The Host's `run` (src/host/run-process.ts, issue #41: node:child_process instead of execa): the
// command gets only PATH, LANG=C and what it is given (SEC-07: nothing of the caller's
// environment reaches a tool root runs), its input and then end of input, `/` as its directory;
// its exit status and output come back (one final newline stripped); a command that cannot start
// is a failure (1), not an exception (REL-01: the caller says it in one line); and a command that
// outlives its time limit is stopped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Host } from '../../src/host/host.ts';

const host = new Host('/');

test('SEC-07 a command gets PATH, LANG=C and the given variables only, its input, and / as its directory', async () => {
  process.env.OAC_TEST_LEAK = 'from the caller';
  try {
    const r = await host.run('sh', ['-c', 'env | sort; pwd; cat'], {
      input: 'the input\n',
      env: { GIVEN: 'yes' },
    });
    assert.equal(r.exitCode, 0);
    const lines = r.stdout.split('\n');
    const names = lines.filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=')[0]);
    // sh adds PWD (and SHLVL, _) of its own; nothing else of the caller's.
    assert.deepEqual(
      names.filter((n) => !['PWD', 'SHLVL', '_'].includes(n ?? '')),
      ['GIVEN', 'LANG', 'PATH'],
    );
    assert.ok(lines.includes('LANG=C'));
    assert.deepEqual(lines.slice(-2), ['/', 'the input'], 'one final newline stripped');
  } finally {
    delete process.env.OAC_TEST_LEAK;
  }
});

test('REL-01 an exit status and both outputs come back; a command that cannot start is status 1, not a throw', async () => {
  const r = await host.run('sh', ['-c', 'echo out; echo err >&2; exit 3']);
  assert.deepEqual(r, { exitCode: 3, stdout: 'out', stderr: 'err' });
  const missing = await host.run('/nonexistent/tool', ['x']);
  assert.equal(missing.exitCode, 1);
  assert.equal(missing.stdout, '');
});

test('REL-01 a command past its time limit is stopped (SIGTERM, then SIGKILL), and the run ends', async () => {
  const started = Date.now();
  const r = await host.run('sh', ['-c', "trap '' TERM; sleep 30"], { timeoutMs: 200 });
  assert.notEqual(r.exitCode, 0);
  assert.ok(Date.now() - started < 10_000, `ended after ${Date.now() - started} ms`);
});
