// HOST-06, issue #27 finding 4, on a scratch tree: the proxy settings an install writes
// (desired()'s env-file resource, the same bytes the file driver puts in /etc/oac-node/<id>.env)
// are the settings status and uninstall read back (records/proxy-settings.ts), exactly, or the
// install refuses the value with one line naming the variable; and status names an env file
// that was not written so (a carriage return inside a value) instead of reaching Core through
// other settings than the service's. The format itself: test/unit/env-file.test.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { nodeStatus } from '../../installer/status.ts';
import { Journal } from '../../records/journal.ts';
import { proxyEnvForNode, savedProxyEnv } from '../../records/proxy-settings.ts';
import { desired } from '../helpers/desired.ts';
import { isOacError } from '../../src/errors.ts';
import { Host } from '../../src/host/host.ts';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { PROXY_VARIABLES } from '../../src/net/proxy-env.ts';
import { makeScratchRoot } from '../helpers/scratch-root.ts';

const ID = parseInstallationId('inst-1');
const CORE = 'http://127.0.0.1:9';
const names = layout(ID);
let root: string;
// status reads the caller's own proxy variables first: this process must have none.
const saved = Object.fromEntries(PROXY_VARIABLES.map((n) => [n, process.env[n]]));
before(() => PROXY_VARIABLES.forEach((n) => delete process.env[n]));
after(() => {
  for (const [n, v] of Object.entries(saved)) if (v !== undefined) process.env[n] = v;
});
beforeEach(() => (root = makeScratchRoot()));
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The env file an install with these proxy variables writes (undefined: none). */
function envFileOf(proxyEnv: Record<string, string>): string | undefined {
  const file = desired({
    layout: names,
    provider: 'docker',
    group: 'docker',
    coreUrl: CORE,
    corePin: null,
    proxyEnv,
    envKey: '0'.repeat(64),
    program: { source: '/nonexistent', sha256: 'a'.repeat(64) },
  }).find((r) => r.key === 'proxy-settings');
  return file?.kind === 'file' ? file.content : undefined;
}

function put(hostPath: string, content: string | Buffer): void {
  const path = join(root, hostPath);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, content, { mode: 0o600 });
}

test('HOST-06 the proxy settings status and uninstall read back are exactly the ones the install wrote, or the install refuses the value naming the variable', async () => {
  const host = new Host(root);
  const cases: Array<[Record<string, string>, 'kept' | string]> = [
    [{ http_proxy: 'http://user:p%40ss@proxy.test:3128', no_proxy: 'localhost,.corp' }, 'kept'],
    [{ HTTPS_PROXY: 'http://a\\b"c:1', NO_PROXY: '$HOME `id` # ; [x] =' }, 'kept'],
    [{ https_proxy: '', HTTPS_PROXY: 'http://upper:2', no_proxy: ' spaced ' }, 'kept'],
    // The example: an env file reader that splits lines on CR read two variables.
    [{ https_proxy: 'http://proxy:3128/\rno_proxy=*' }, 'https_proxy'],
    // A CRLF /etc/environment: a carriage return at the end of the value.
    [{ https_proxy: 'http://proxy:3128/\r' }, 'https_proxy'],
    [{ http_proxy: 'http://proxy:3128', HTTP_PROXY: 'http://p:1\nNO_PROXY=*' }, 'HTTP_PROXY'],
    [{ no_proxy: 'a\u0000b' }, 'no_proxy'],
  ];
  for (const [proxyEnv, expected] of cases) {
    const what = JSON.stringify(proxyEnv);
    let content: string | undefined;
    try {
      content = envFileOf(proxyEnv);
    } catch (error) {
      assert.ok(isOacError(error), `${what}: ${String(error)}`);
      assert.notEqual(expected, 'kept', `${what} refused: ${error.message}`);
      assert.match(error.message, new RegExp(`\\b${expected}\\b`), what);
      assert.doesNotMatch(error.message, /\n/, what);
      continue;
    }
    assert.ok(content !== undefined, what);
    put(names.envFile, content);
    assert.deepEqual(await savedProxyEnv(host, names), proxyEnv, `${what} read back`);
    // Uninstall's and status's way in: with no proxy variable of the caller's, the saved ones.
    assert.deepEqual(await proxyEnvForNode(host, names, {}), proxyEnv, what);
    assert.equal(expected, 'kept', `${what} was written and read back as it was`);
  }
});

test('HOST-06 status names a saved env file with a carriage return inside a value instead of reaching Core through other proxy settings', async () => {
  const host = new Host(root);
  const journal = await Journal.open(host, ID, CORE);
  await journal.setInputs({ provider: 'docker', group: 'docker', checkpoint_root: null });
  await journal.intend('proxy-settings', 'file', names.envFile); // the journal is written
  put(names.envFile, 'https_proxy="http://proxy:3128/\rno_proxy=*"\n');
  const status = await nodeStatus(host, ID);
  assert.equal(status?.core.state, 'unknown', JSON.stringify(status?.core));
  assert.match(
    status?.core.detail ?? '',
    new RegExp(`The saved proxy settings ${names.envFile} are damaged: line 1 `),
  );
  // Uninstall asks Core the same way: one line, the same one, before any request.
  await assert.rejects(proxyEnvForNode(host, names, {}), (error: unknown) => {
    assert.ok(isOacError(error) && error.code === 'proxy_settings_damaged', String(error));
    return true;
  });
  // The caller's own variables take precedence; the file is not read then.
  assert.deepEqual(await proxyEnvForNode(host, names, { NO_PROXY: '*' }), { NO_PROXY: '*' });
});

test("HOST-06 SEC-06 a FIFO, a link or a huge file in the env file's place is named, never read (a FIFO hung every reader)", async () => {
  const host = new Host(root);
  const path = join(root, names.envFile);
  const cases: Array<[string, () => void, RegExp]> = [
    ['a FIFO', () => execFileSync('mkfifo', ['-m', '600', path]), /not a regular file/],
    ['a link', () => symlinkSync('/etc/passwd', path), /symbolic link/],
    ['a directory', () => mkdirSync(path), /not a regular file/],
    ['65 KiB', () => writeFileSync(path, `#${'x'.repeat(65 * 1024)}\n`), /over 64 KiB/],
  ];
  for (const [what, plant, problem] of cases) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    rmSync(path, { recursive: true, force: true });
    plant();
    await assert.rejects(savedProxyEnv(host, names), (error: unknown) => {
      assert.ok(
        isOacError(error) && error.code === 'proxy_settings_damaged',
        `${what}: ${String(error)}`,
      );
      assert.match(error.message, problem, what);
      return true;
    });
  }
});
