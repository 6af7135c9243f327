// DL-04, SEC-04, SEC-03 fuzzed (issue #26 item 2): the proxy rules (src/net/proxy-env.ts). Any six
// variables (proxy URLs with and without scheme, port or credentials, no_proxy lists of names,
// suffixes, ports, addresses and blocks, each a little wrong, and noise) parse to settings or
// one OacError that prints safely and never holds the proxy password; with any settings, every
// URL gets a route (loopback always direct) whose printed line holds no credential. A proxy URL
// written from its parts reads back as those parts. Agreement with curl: fuzz-proxy-curl.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  PROXY_VARIABLES,
  describeRoute,
  parseProxyEnv,
  parseProxyUrl,
  resolveRoute,
} from '../../src/net/proxy-env.ts';
import { isLoopbackHost } from '../../src/net/url-policy.ts';
import {
  assertPrintable,
  charsOf,
  check,
  hostileString,
  mutatedText,
  outcome,
} from './fuzz-support.ts';

// A marker no message holds: if it is in a line, the password was echoed.
const SECRET = 'Pw9-SECRET';

const name = charsOf('abcdefghijklmnopqrstuvwxyz0123456789-', 1, 8);
const domain = fc.array(name, { minLength: 1, maxLength: 3 }).map((labels) => labels.join('.'));
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
const ipv6 = fc.constantFrom('fd00::1', '::1', '2001:db8::2', 'fe80::1234', '::ffff:10.0.0.1');
const hostName = fc.oneof(domain, ipv4, fc.constantFrom('localhost', 'proxy.corp', '127.0.0.1'));

const proxyUrl = fc
  .record({
    scheme: fc.constantFrom('http://', 'https://', 'HTTP://', '', 'socks5://', 'ftp://'),
    user: fc.constantFrom(
      '',
      'alice@',
      `alice:${SECRET}@`,
      `a%40b:${SECRET}%25@`,
      `:${SECRET}@`,
      `u:${SECRET}%zz@`,
    ),
    host: fc.oneof(
      hostName,
      ipv6.map((h) => `[${h}]`),
    ),
    port: fc.constantFrom('', ':3128', ':80', ':443', ':0', ':65535', ':65536', ':x'),
    path: fc.constantFrom('', '/', '/p?q'),
  })
  .map((p) => `${p.scheme}${p.user}${p.host}${p.port}${p.path}`);

const noProxyEntry = fc.oneof(
  domain,
  domain.map((d) => `.${d}`),
  domain.map((d) => `*.${d}`),
  domain.map((d) => `${d}.`),
  fc.tuple(domain, fc.integer({ min: 0, max: 70000 })).map(([d, p]) => `${d}:${p}`),
  ipv4,
  fc.tuple(ipv4, fc.nat(40)).map(([a, b]) => `${a}/${b}`),
  ipv6,
  ipv6.map((a) => `[${a}]:80`),
  fc.tuple(ipv6, fc.nat(140)).map(([a, b]) => `${a}/${b}`),
  fc.constantFrom('*', ' ', '', 'a*b', 'Exact.Example', '[', '::/0'),
);
const noProxy = fc.array(noProxyEntry, { maxLength: 5 }).map((e) => e.join(','));

const value = fc.oneof(
  { weight: 4, arbitrary: proxyUrl },
  { weight: 2, arbitrary: proxyUrl.chain((u) => mutatedText(u)) },
  { weight: 4, arbitrary: noProxy },
  { weight: 1, arbitrary: noProxy.chain((n) => mutatedText(n)) },
  { weight: 1, arbitrary: hostileString },
);
const env = fc.dictionary(fc.constantFrom(...PROXY_VARIABLES), value, { maxKeys: 6 });

const target = fc
  .tuple(
    fc.constantFrom('http://', 'https://'),
    fc.oneof(
      hostName,
      ipv6.map((h) => `[${h}]`),
      fc.constantFrom('LOCALHOST.', '[::ffff:127.0.0.1]'),
    ),
    fc.constantFrom('', ':80', ':443', ':8080', ':3128'),
  )
  .map(([s, h, p]) => `${s}${h}${p}/x`)
  // A name ending in a number that is no IPv4 address (`a.999`) is no URL at all.
  .filter((u) => URL.canParse(u))
  .map((u) => new URL(u));

test('DL-04 SEC-04 SEC-03 any proxy variables give settings or one OacError without the password; every URL gets a route', () => {
  check(
    fc.property(env, fc.array(target, { minLength: 1, maxLength: 4 }), (vars, urls) => {
      const read = outcome(() => parseProxyEnv(vars));
      if ('error' in read) {
        const codes = [
          'proxy_invalid',
          'proxy_unsupported_scheme',
          'no_proxy_invalid',
          'proxy_control_character',
        ];
        assert.ok(codes.includes(read.error.code), read.error.code);
        assertPrintable(read.error, { unmasked: [SECRET] });
        return;
      }
      for (const url of urls) {
        const route = resolveRoute(read.ok, url);
        const line = describeRoute(route);
        assert.ok(!line.includes(SECRET), line);
        if (isLoopbackHost(url.hostname)) assert.equal(line, 'direct (loopback)');
        if (route.kind === 'proxy') {
          assert.equal(route.proxy.username + route.proxy.password, '', 'no credential in the URL');
          assert.ok(!route.display.includes('@') || route.display.includes('***@'), route.display);
        }
      }
    }),
  );
});

// Credentials as an operator writes them: any text, percent-encoded (curl's rule, DL-04).
const credential = fc.string({ unit: 'grapheme', maxLength: 12 });

test('DL-04 a proxy URL written from its parts reads back as those parts', () => {
  check(
    fc.property(
      fc.constantFrom('http', 'https'),
      credential,
      credential,
      hostName.filter((h) => URL.canParse(`http://${h}`)),
      fc.option(fc.integer({ min: 1, max: 65535 })),
      (scheme, user, password, h, port) => {
        const auth =
          user === '' ? '' : `${encodeURIComponent(user)}:${encodeURIComponent(password)}@`;
        const written = `${scheme}://${auth}${h}${port === null ? '' : `:${port}`}`;
        const read = parseProxyUrl('https_proxy', written);
        assert.equal(read.url.protocol, `${scheme}:`);
        assert.equal(read.url.hostname, new URL(`http://${h}`).hostname);
        const expectedPort = port ?? (scheme === 'http' ? 1080 : 443);
        assert.equal(read.display.endsWith(`:${expectedPort}`), true, read.display);
        if (user === '') assert.equal(read.credentials, undefined);
        else assert.deepEqual(read.credentials, { username: user, password });
      },
    ),
    2_000,
  );
});

// Found by fuzz-proxy-curl.test.ts: a no_proxy name entry matched an IPv4 address by its last
// octets (`1.1` sent 10.0.1.1 direct), where the line's curl used the proxy. Not a refusal, so
// no row of the hostile-input table: the run works, on another route than the download's.
test('DL-04 regression: a no_proxy name entry never matches an address by its last octets', () => {
  const settings = parseProxyEnv({ https_proxy: 'proxy.corp:3128', no_proxy: '1.1,0.1.1' });
  for (const url of ['https://10.0.1.1/', 'https://192.168.1.1/'])
    assert.equal(
      describeRoute(resolveRoute(settings, new URL(url))),
      'via proxy http://proxy.corp:3128',
      url,
    );
  const exact = parseProxyEnv({ https_proxy: 'proxy.corp:3128', no_proxy: '10.0.1.1' });
  assert.equal(
    describeRoute(resolveRoute(exact, new URL('https://10.0.1.1/'))),
    'direct (no_proxy 10.0.1.1)',
  );
});
