// The reference Core as a process (docs/reference-core.md "Starting it"): one JSON line on
// stdout and nothing else, options honoured, exit 0 on SIGTERM and SIGINT, 2 on a bad option.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { call, startCore } from '../helpers/core.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

// Runs main.ts, waits for the first line, sends `signal`, and returns everything it printed.
async function runUntilSignal(
  args: string[],
  signal: NodeJS.Signals,
  work?: (line: string) => Promise<void>,
) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'fixtures/core/main.ts', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const firstLine = new Promise<string>((resolve) =>
    child.stdout.on('data', (t: string) => {
      stdout += t;
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    }),
  );
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const line = await Promise.race([firstLine, exit.then(() => '')]);
  if (line && work) await work(line);
  child.kill(signal);
  const [code] = await exit;
  return { line, stdout, stderr, code };
}

test('core process: exactly one JSON line with the four URLs and key; SIGTERM exits 0', async () => {
  const r = await runUntilSignal(['--port', '0'], 'SIGTERM');
  assert.equal(r.code, 0);
  assert.equal(r.stdout, `${r.line}\n`, 'nothing else on stdout');
  const info = JSON.parse(r.line) as Record<string, string>;
  assert.deepEqual(Object.keys(info), ['core_url', 'console_url', 'release_url', 'core_key']);
  assert.match(info.core_url!, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(info.console_url, info.core_url, 'the console shares Core origin');
  assert.match(info.release_url!, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.notEqual(info.release_url, info.core_url);
  assert.match(info.core_key!, /^[0-9a-f]{64}$/);
  assert.equal(r.stderr, '', 'stderr stays quiet without --verbose');
});

test('core process: SIGINT exits 0; --verbose logs requests to stderr without secrets', async () => {
  const key = 'fixed-core-key-0123456789abcdef';
  const r = await runUntilSignal(['--verbose', '--core-key', key], 'SIGINT', async (line) => {
    const info = JSON.parse(line) as { core_url: string; core_key: string };
    assert.equal(info.core_key, key);
    const tokens = await call('POST', `${info.core_url}/core/v1/sandbox/enrollment-tokens`, {
      bearer: key,
      json: {},
    });
    assert.equal(tokens.status, 201);
    const token = (tokens.body as { token: string }).token;
    await call('GET', `${info.core_url}/api/v1/sandbox-node/configuration`, { bearer: token });
  });
  assert.equal(r.code, 0);
  assert.match(r.stderr, /core GET \/api\/v1\/sandbox-node\/configuration 200/);
  assert.doesNotMatch(r.stderr, new RegExp(key));
});

test('core process: options are honoured (installation ID, public URL, provider)', async () => {
  const id = '7d444840-9dc0-41a1-88b7-6d5e8c5a3e1c';
  const core = await startCore([
    '--installation-id',
    id,
    '--public-url',
    'https://core.example',
    '--provider',
    'microsandbox',
  ]);
  try {
    const t = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
    const token = (t.body as { token: string }).token;
    const c = await call('GET', `${core.core_url}/api/v1/sandbox-node/configuration`, {
      bearer: token,
    });
    const body = c.body as Record<string, unknown>;
    assert.deepEqual(
      [body.installation_id, body.core_url, body.provider],
      [id, 'https://core.example', 'microsandbox'],
    );
  } finally {
    await core.stop();
  }
  assert.deepEqual(await core.exited, { code: 0, signal: null });
});

test('core process: a bad option exits 2, and the helper reports the stderr', async () => {
  await assert.rejects(
    startCore(['--provider', 'kubernetes']),
    /--provider must be docker or microsandbox/,
  );
  await assert.rejects(startCore(['--bogus']), /did not start: exited with 2[\s\S]*bogus/);
  await assert.rejects(startCore(['--release-dir', '/nonexistent/dir']), /not a directory/);
  await assert.rejects(startCore(['--public-url', 'https://core.example/path']), /--public-url/);
});
