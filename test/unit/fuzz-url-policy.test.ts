// SEC-01, SEC-04, SEC-03 fuzzed (issue #26 item 2): the URL policy (src/net/url-policy.ts) that
// every Core, console and release URL passes. Any text (URLs near the rule: http on and off
// loopback, credentials, paths, queries, blanks, control characters) gives a URL that keeps
// SEC-01 (https, or http on loopback; no user or password) or one OacError that prints safely
// and never holds the password it was given. An accepted URL, written out as its href and read
// again, is the same URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isLoopbackHost, parseCoreUrl, parseServiceUrl } from '../../src/net/url-policy.ts';
import {
  ALNUM,
  assertPrintable,
  charsOf,
  check,
  hostileString,
  mutatedText,
  outcome,
} from './fuzz-support.ts';

// A marker no message holds: if it is in a line, the password was echoed.
const SECRET = 'Pw9-SECRET';

const host = fc.oneof(
  fc.constantFrom(
    'core.example',
    'localhost',
    '127.0.0.1',
    '127.1.2.3',
    '[::1]',
    '[fd00::1]',
    '10.0.0.1',
    'LOCALHOST',
    '127.0.0.1.nip.io',
    'xn--bcher-kva.example',
  ),
  charsOf(`${ALNUM}.-`, 1, 20),
);
const url = fc
  .record({
    scheme: fc.constantFrom('https://', 'http://', 'HTTPS://', 'ftp://', '', 'https:/', 'https:'),
    user: fc.constantFrom(
      '',
      'u@',
      `u:${SECRET}@`,
      `:${SECRET}@`,
      `u:${SECRET}%40x@`,
      `u:${SECRET}@x@`,
    ),
    host,
    port: fc.constantFrom('', ':443', ':8443', ':0', ':65536', ':x'),
    rest: fc.constantFrom('', '/', '/api/', '?q=1', '#f', '/a?b#c', '/%2e%2e/'),
    pad: fc.constantFrom('', ' ', '\t', '\n'),
  })
  .map((u) => `${u.pad}${u.scheme}${u.user}${u.host}${u.port}${u.rest}${u.pad}`);

const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: url },
  { weight: 3, arbitrary: url.chain((u) => mutatedText(u)) },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  { weight: 2, arbitrary: hostileString },
);

test('SEC-01 SEC-04 SEC-03 parseServiceUrl and parseCoreUrl: any text is a URL that keeps SEC-01 or one OacError without the password', () => {
  check(
    fc.property(text, (raw) => {
      for (const parse of [() => parseServiceUrl(raw, 'The Core URL'), () => parseCoreUrl(raw)]) {
        const read = outcome(parse);
        if ('error' in read) {
          assert.ok(['invalid_url', 'insecure_url'].includes(read.error.code), read.error.code);
          // A password is what stands before an `@` (a mutation may have taken it away).
          const at = raw.indexOf(SECRET);
          const secret = at >= 0 && raw.indexOf('@', at) > at ? [SECRET] : [];
          assertPrintable(read.error, { unmasked: secret });
          continue;
        }
        const u = read.ok;
        assert.ok(
          u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname)),
          u.href,
        );
        assert.equal(u.username, '');
        assert.equal(u.password, '');
        // Written out and read again: the same URL (what the journal and the unit keep).
        assert.equal(parseServiceUrl(u.href, 'The Core URL').href, u.href);
      }
      const core = outcome(() => parseCoreUrl(raw));
      if ('ok' in core) {
        assert.equal(core.ok.pathname, '/');
        assert.equal(core.ok.search + core.ok.hash, '');
      }
    }),
  );
});
