// HOST-06, issue #27 finding 4: the env file has one format, written and read by one module
// (records/env-file.ts). Every value the writer accepts reads back exactly; a value it cannot
// write (a control character: CR, LF, NUL …) is refused naming the variable, and so is such a
// value in the installer's own environment (src/net/proxy-env.ts), before anything is written;
// a file the writer did not write is refused by the reader with one line, never half read.
// The same round trip through desired() and the saved settings on a real tree:
// test/host/env-file.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseEnvFile, renderEnvFile } from '../../records/env-file.ts';
import { isOacError } from '../../src/errors.ts';
import { PROXY_VARIABLES, parseProxyEnv, type ProxyEnv } from '../../src/net/proxy-env.ts';

const PATH = '/etc/oac-node/inst-1.env';
const SECRET = 'hunter2-proxy-secret';
const KEY = 'c0'.repeat(32);

/** The file the writer wrote, read back by the reader. */
const roundTrip = (env: Record<string, string>) => {
  const text = renderEnvFile(env, KEY);
  assert.ok(text !== undefined);
  return parseEnvFile(Buffer.from(text, 'utf8'), PATH);
};

function refusedWith(code: string, ...mentions: string[]) {
  return (error: unknown) => {
    assert.ok(isOacError(error), String(error));
    assert.equal(error.code, code, error.message);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    for (const text of mentions) assert.ok(error.message.includes(text), error.message);
    assert.ok(!error.message.includes(SECRET), `no value in the line: ${error.message}`);
    return true;
  };
}

// A small deterministic generator (no dependency): the same values on every run.
function* values(count: number): Generator<string> {
  const alphabet = [
    ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
    'é',
    'ß',
    '€',
    '\u00a0',
    '\u2028',
    '\u202e',
    '😀',
    '\\\\',
    '\\"',
    '"\\',
  ];
  let seed = 27;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < count; i += 1) {
    const length = next() % 24;
    yield Array.from({ length }, () => alphabet[next() % alphabet.length]).join('');
  }
}

test('HOST-06 every value the writer accepts reads back exactly, under each of the six names', () => {
  const fixed = [
    '',
    ' ',
    ' leading and trailing ',
    'http://user:p%40ss@proxy.example:3128',
    'http://a\\b"c:1',
    '\\',
    '"',
    '\\"',
    '$HOME ${HOME} `id` $(id)',
    "it's",
    '# not a comment',
    '; not a comment either',
    '[section]',
    'a=b=c',
    'localhost,.corp,10.0.0.0/8,[::1]:8080',
  ];
  const all = [...fixed, ...values(500)];
  for (let i = 0; i < all.length; i += PROXY_VARIABLES.length) {
    const env = Object.fromEntries(PROXY_VARIABLES.map((n, j) => [n, all[(i + j) % all.length]]));
    assert.deepEqual(roundTrip(env as Record<string, string>), env, JSON.stringify(env));
  }
  for (const name of PROXY_VARIABLES)
    for (const value of fixed) assert.deepEqual(roundTrip({ [name]: value }), { [name]: value });
  // Only the six are written; none set: no file.
  assert.deepEqual(roundTrip({ https_proxy: 'http://p:1', PATH: '/x', ALL_PROXY: 'http://q:2' }), {
    https_proxy: 'http://p:1',
  });
  assert.equal(renderEnvFile({}, KEY), undefined);
});

test('HOST-06 a value with CR, LF, NUL or another control character is not written: one line names the variable', () => {
  // The example: read by a reader that splits lines on CR as well (ini, systemd outside
  // quotes), `https_proxy="http://proxy:3128/\rno_proxy=*"` would be two variables.
  assert.throws(
    () => renderEnvFile({ https_proxy: 'http://proxy:3128/\rno_proxy=*' }, KEY),
    refusedWith('proxy_control_character', 'https_proxy'),
  );
  const controls = [
    ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
    '\u007f',
    '\r\n',
  ];
  for (const name of PROXY_VARIABLES)
    for (const c of controls)
      assert.throws(
        () =>
          renderEnvFile({ http_proxy: 'http://ok:1', [name]: `http://u:${SECRET}@p:1/${c}` }, KEY),
        refusedWith('proxy_control_character', name),
        `${name} with U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
  // Not UTF-8 (a lone surrogate) cannot be written as what it is either.
  assert.throws(
    () => renderEnvFile({ NO_PROXY: `a\ud800b${SECRET}` }, KEY),
    refusedWith('proxy_control_character', 'NO_PROXY'),
  );
});

test('SEC-04 the installer refuses a control character in any of the six, before anything is written, even where lowercase hides it or trimming would drop it', () => {
  for (const [env, name] of [
    [{ https_proxy: 'http://proxy:3128\r' }, 'https_proxy'], // a CRLF /etc/environment
    [{ https_proxy: 'http://proxy:3128/\rno_proxy=*' }, 'https_proxy'],
    [{ http_proxy: 'http://proxy:3128', HTTP_PROXY: `http://u:${SECRET}@p:1\n` }, 'HTTP_PROXY'],
    [{ NO_PROXY: 'a\u0000b' }, 'NO_PROXY'],
    [{ no_proxy: 'a,\tb' }, 'no_proxy'],
  ] as Array<[ProxyEnv, string]>)
    assert.throws(() => parseProxyEnv(env), refusedWith('proxy_control_character', name));
  // What it accepts, the env file writes.
  const fine = { https_proxy: ' http://proxy:3128 ', no_proxy: 'a, b' };
  parseProxyEnv(fine);
  assert.deepEqual(roundTrip(fine), fine);
});

test('HOST-06 a file the writer did not write is refused with one line naming it, never half read', () => {
  const damaged: Array<[string, string | Buffer, string]> = [
    ['a CR inside a quoted value', 'https_proxy="http://proxy:3128/\rno_proxy=*"\n', 'line 1'],
    ['a CRLF line end', 'https_proxy="http://proxy:3128/"\r\n', 'line 1'],
    ['a line break inside a quoted value', `https_proxy="a\nb${SECRET}"\n`, 'line 1'],
    ['a NUL', `https_proxy="a\u0000${SECRET}"\n`, 'line 1'],
    ['a tab', 'https_proxy="a\tb"\n', 'line 1'],
    ['an unquoted value', `https_proxy=http://u:${SECRET}@p:1\n`, 'line 1'],
    ['a single-quoted value', "https_proxy='http://p:1'\n", 'line 1'],
    ['an escape the writer never writes', 'https_proxy="a\\$b"\n', 'line 1'],
    ['a backslash at the end', 'https_proxy="a\\"\n', 'line 1'],
    ['a quote inside', 'https_proxy="a"b"\n', 'line 1'],
    ['a value after the closing quote', 'https_proxy="a"b\n', 'line 1'],
    ['spaces around =', 'https_proxy = "a"\n', 'line 1'],
    ['a leading space', ' https_proxy="a"\n', 'line 1'],
    ['a trailing space', 'https_proxy="a" \n', 'line 1'],
    ['a comment', 'https_proxy="a"\n# edited\n', 'line 2'],
    ['an empty line', 'https_proxy="a"\n\nno_proxy="b"\n', 'line 2'],
    ['another variable', 'https_proxy="a"\nLD_PRELOAD="/tmp/x.so"\n', 'line 2'],
    ['a variable set twice', 'HTTPS_PROXY="a"\nHTTPS_PROXY="b"\n', 'line 2 sets HTTPS_PROXY'],
    ['no final line break', 'https_proxy="a"', 'last line'],
    ['nothing', '', 'empty'],
    ['not UTF-8', Buffer.from([0x68, 0x3d, 0x22, 0xff, 0x22, 0x0a]), 'UTF-8'],
    ['a byte-order mark', '\ufeffhttps_proxy="a"\n', 'line 1'],
  ];
  for (const [what, content, where] of damaged)
    assert.throws(
      () => parseEnvFile(typeof content === 'string' ? Buffer.from(content) : content, PATH),
      refusedWith('proxy_settings_damaged', PATH, where),
      what,
    );
  // A string is read the same way; one that is no UTF-8 text (a lone surrogate) is refused.
  assert.deepEqual(parseEnvFile('no_proxy="a\\"b\\\\c"\n', PATH), { no_proxy: 'a"b\\c' });
  assert.throws(
    () => parseEnvFile('no_proxy="\ud800"\n', PATH),
    refusedWith('proxy_settings_damaged', 'UTF-8'),
  );
});
