// `oac-node command` (src/cli/commands/command.ts) in-process: the token from stdin only, a
// terminal refused, bad input as one line with exit 2, the checksum from --installer-sha256 or
// the console; and the SHA256SUMS reader (src/net/installer-checksum.ts).
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { renderInstallCommand, renderUninstallCommand } from '../../installer/one-liner.ts';
import { printCommand, readToken } from '../../src/cli/print-line.ts';
import { UsageError } from '../../src/errors.ts';
import { installerSumsUrl, parseInstallerSha256 } from '../../src/net/installer-checksum.ts';

const SHA = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const TOKEN = 'tok-0123456789abcdefghijklmnop';
const BASE = { 'core-url': 'https://core.example.com', 'installation-id': 'inst-1' };

function stdinOf(text: string, isTTY = false): Readable & { isTTY?: boolean } {
  const stream = Readable.from([Buffer.from(text)]) as Readable & { isTTY?: boolean };
  stream.isTTY = isTTY;
  return stream;
}

function unreadable(): Readable & { isTTY?: boolean } {
  return new Readable({
    read() {
      throw new Error('stdin must not be read');
    },
  });
}

async function print(
  args: Partial<Parameters<typeof printCommand>[0]>,
  stdin: Readable & { isTTY?: boolean },
): Promise<{ out: string; fetched: string[] }> {
  let out = '';
  const fetched: string[] = [];
  await printCommand(
    { ...BASE, uninstall: false, force: false, ...args } as Parameters<typeof printCommand>[0],
    {
      stdin,
      stdout: (text) => {
        out += text;
      },
      fetchSha256: async (consoleUrl) => {
        fetched.push(consoleUrl);
        return SHA;
      },
    },
  );
  return { out, fetched };
}

async function refusal(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof UsageError, String(error));
    assert.equal(error.exitCode, 64);
    assert.match(error.message, pattern);
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
}

describe('oac-node command', () => {
  test('BOOT-05 BOOT-06 prints the install line with the token read from stdin and the console checksum', async () => {
    const { out, fetched } = await print({}, stdinOf(`${TOKEN}\n`));
    assert.deepEqual(fetched, ['https://core.example.com']);
    assert.equal(
      out,
      `${renderInstallCommand({
        consoleUrl: 'https://core.example.com',
        coreUrl: 'https://core.example.com',
        installationId: 'inst-1',
        installerSha256: SHA,
        token: TOKEN,
      })}\n`,
    );
  });

  test('BOOT-06 --installer-sha256 is used as given, without asking the console', async () => {
    const { out, fetched } = await print({ 'installer-sha256': OTHER }, stdinOf(TOKEN));
    assert.deepEqual(fetched, []);
    assert.ok(out.includes(`s="${OTHER}"`));
  });

  test('--console-url names where the installer is downloaded; --core-url stays the Core address', async () => {
    const { out, fetched } = await print(
      { 'console-url': 'https://console.example.com/web/' },
      stdinOf(`${TOKEN}\r\n`),
    );
    assert.deepEqual(fetched, ['https://console.example.com/web']);
    assert.ok(out.includes('"https://console.example.com/web/node-install/oac-node.gz"'));
    assert.ok(out.includes('--core-url "https://core.example.com"'));
  });

  test('BOOT-07 --uninstall prints the uninstall line and reads no token', async () => {
    const { out } = await print({ uninstall: true, force: true }, unreadable());
    assert.equal(
      out,
      `${renderUninstallCommand({
        consoleUrl: 'https://core.example.com',
        installationId: 'inst-1',
        installerSha256: SHA,
        force: true,
      })}\n`,
    );
  });

  test('BOOT-05 a terminal on stdin is refused before anything is fetched', async () => {
    await refusal(print({}, stdinOf(TOKEN, true)), /standard input, not a terminal/);
  });

  test('BOOT-05 stdin must hold exactly one line: the token', async () => {
    await refusal(print({}, stdinOf('')), /holds no enrollment token/);
    await refusal(print({}, stdinOf('\n')), /holds no enrollment token/);
    await refusal(print({}, stdinOf(`${TOKEN}\n${TOKEN}\n`)), /one line/);
    await refusal(print({}, stdinOf('x'.repeat(5000))), /one line/);
    await refusal(print({}, stdinOf('not a token!\n')), /enrollment token must be/);
  });

  test('exit 2 with one line naming what to fix, before stdin is read', async () => {
    await refusal(print({ 'core-url': 'http://core.example.com' }, unreadable()), /https/);
    await refusal(print({ 'console-url': 'ftp://c.example' }, unreadable()), /https/);
    await refusal(print({ 'installation-id': '../x' }, unreadable()), /installation ID/);
    await refusal(print({ 'installer-sha256': 'ABC' }, unreadable()), /SHA-256/);
    await refusal(print({ force: true }, unreadable()), /--force goes with --uninstall/);
  });

  test('SEC-03 a refused token is never repeated', async () => {
    const secret = 'secret value with spaces 123456';
    await assert.rejects(
      readToken(stdinOf(`${secret}\n`)),
      (error: unknown) => error instanceof UsageError && !error.message.includes(secret),
    );
  });
});

describe("the console's SHA256SUMS", () => {
  test('BOOT-03 BOOT-06 the line for the executable oac-node (not oac-node.gz), in either sha256sum mode', () => {
    assert.equal(parseInstallerSha256(`${SHA}  oac-node\n`), SHA);
    assert.equal(parseInstallerSha256(`${SHA}  oac-node\n${OTHER}  oac-node.gz\n`), SHA);
    assert.equal(parseInstallerSha256(`${OTHER}  oac-node.gz\n${SHA} *oac-node\n`), SHA);
    assert.equal(parseInstallerSha256(`${SHA}  oac-node\r\n`), SHA);
    assert.equal(parseInstallerSha256(`${SHA}  oac-node\n${SHA}  oac-node\n`), SHA);
  });

  test('BOOT-06 no line, a malformed line, or two different lines: no checksum', () => {
    assert.equal(parseInstallerSha256(''), undefined);
    assert.equal(parseInstallerSha256(`${SHA}  oac-node.gz\n`), undefined);
    assert.equal(parseInstallerSha256(`${SHA.toUpperCase()}  oac-node\n`), undefined);
    assert.equal(parseInstallerSha256(`${SHA}  oac-node.old\n`), undefined);
    assert.equal(parseInstallerSha256(`x${SHA}  oac-node\n`), undefined);
    assert.equal(parseInstallerSha256(`${SHA}  oac-node\n${OTHER}  oac-node\n`), undefined);
  });

  test('SEC-01 the URL keeps a console path prefix and refuses plain http off loopback', () => {
    assert.equal(
      installerSumsUrl('https://c.example/console/').href,
      'https://c.example/console/node-install/SHA256SUMS',
    );
    assert.equal(
      installerSumsUrl('http://127.0.0.1:9').href,
      'http://127.0.0.1:9/node-install/SHA256SUMS',
    );
    assert.throws(() => installerSumsUrl('http://c.example'), /https/);
  });
});
