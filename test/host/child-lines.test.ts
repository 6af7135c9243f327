// Host.runStreaming, the installer's door to the node half (OPS-01, OPS-03, SEC-04): lines reach
// the caller while the child still runs; an abort stops the child's whole process group, a
// child that ignores SIGTERM included (SIGKILL after the grace period); a line too long to be
// an event is dropped without being buffered, and the next line still arrives.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Host } from '../../src/host/host.ts';

const scratch = mkdtempSync(join(tmpdir(), 'oac-lines-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const host = new Host('/');

/** Whether any process is still in process group `pgid` (read from /proc, as ps does). */
async function groupAlive(pgid: number): Promise<boolean> {
  const { readdir, readFile } = await import('node:fs/promises');
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

test('OPS-01 a line reaches the caller before the child exits', async () => {
  const gate = join(scratch, 'gate');
  // The child waits for the caller to answer its first line, for at most 10 s.
  const script = `echo first; n=0; while [ ! -e ${gate} ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done; [ -e ${gate} ] && echo answered || echo unanswered`;
  const lines: string[] = [];
  const result = await host.runStreaming('sh', ['-c', script], {
    input: '',
    env: {},
    onLine: (line) => {
      lines.push(line);
      if (line === 'first') writeFileSync(gate, '');
    },
  });
  assert.equal(result.exitCode, 0);
  assert.deepEqual(lines, ['first', 'answered']);
});

test('OPS-03 an abort stops the whole group: a child that ignores SIGTERM and its own child', async () => {
  const stop = new AbortController();
  let pgid = 0;
  // The shell ignores SIGTERM; its background sleep would outlive it if only the shell were told.
  const script = `trap '' TERM; sleep 300 & echo $$; wait`;
  const started = Date.now();
  const result = await host.runStreaming('sh', ['-c', script], {
    input: '',
    env: {},
    signal: stop.signal,
    graceMs: 500,
    onLine: (line) => {
      pgid = Number(line);
      stop.abort('SIGINT');
    },
  });
  assert.ok(pgid > 0, 'the child printed its PID, which leads its own group');
  assert.notEqual(result.exitCode, 0);
  assert.ok(Date.now() - started < 60_000, 'the wait ended (the sleep alone would last 300 s)');
  assert.equal(await groupAlive(pgid), false, 'no process of the group is left');
});

test('SEC-04 a line over 64 KiB is dropped whole, and the next line still arrives', async () => {
  const lines: string[] = [];
  const script = `printf 'a%.0s' $(seq 1 70000); echo; echo next`;
  const result = await host.runStreaming('bash', ['-c', script], {
    input: '',
    env: {},
    onLine: (line) => lines.push(line),
  });
  assert.equal(result.exitCode, 0);
  assert.deepEqual(lines, ['next']);
});
