// DL-04 rule by rule, on the pure resolver (src/net/proxy-env.ts). The real-traffic side (tinyproxy,
// CONNECT, credentials on the wire) is in test/host/download-proxy.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isOacError } from '../../src/errors.ts';
import {
  describeRoute,
  parseProxyEnv,
  proxyEnvFrom,
  resolveRoute,
  type ProxyEnv,
} from '../../src/net/proxy-env.ts';

const line = (env: ProxyEnv, url: string) =>
  describeRoute(resolveRoute(parseProxyEnv(env), new URL(url)));

test('DL-04 only the six variables are read', () => {
  const env = proxyEnvFrom({
    http_proxy: 'a:1',
    HTTPS_PROXY: 'b:2',
    NO_PROXY: 'x',
    ALL_PROXY: 'c:3',
    all_proxy: 'c:3',
    PATH: '/bin',
  });
  assert.deepEqual(env, { http_proxy: 'a:1', HTTPS_PROXY: 'b:2', NO_PROXY: 'x' });
});

test('DL-04 https_proxy applies to https only, http_proxy to http only', () => {
  const env = { http_proxy: 'http://h.example:1', https_proxy: 'http://s.example:2' };
  assert.equal(line(env, 'http://release.test/x'), 'via proxy http://h.example:1');
  assert.equal(line(env, 'https://release.test/x'), 'via proxy http://s.example:2');
  assert.equal(line({ http_proxy: 'h:1' }, 'https://release.test/'), 'direct (no proxy set)');
  assert.equal(line({ https_proxy: 's:2' }, 'http://release.test/'), 'direct (no proxy set)');
});

test('DL-04 lowercase wins when both are set', () => {
  const env = { http_proxy: 'lower:1', HTTP_PROXY: 'upper:2' };
  assert.equal(line(env, 'http://release.test/'), 'via proxy http://lower:1');
  assert.equal(line({ HTTP_PROXY: 'upper:2' }, 'http://release.test/'), 'via proxy http://upper:2');
  assert.equal(
    line({ https_proxy: 'lower:1', HTTPS_PROXY: 'upper:2' }, 'https://release.test/'),
    'via proxy http://lower:1',
  );
});

test('DL-04 an EMPTY lowercase variable still wins: https goes direct, not via the http proxy', () => {
  // undici's EnvHttpProxyAgent sends https through the http proxy here (recipe, table row 2).
  const env = { https_proxy: '', HTTPS_PROXY: 'upper:2', http_proxy: 'h:1', HTTP_PROXY: 'h:1' };
  assert.equal(line(env, 'https://release.test/'), 'direct (no proxy set)');
  assert.equal(
    line({ http_proxy: '', HTTP_PROXY: 'u:2' }, 'http://release.test/'),
    'direct (no proxy set)',
  );
  // An empty lowercase no_proxy hides a set NO_PROXY.
  assert.equal(
    line({ http_proxy: 'h:1', no_proxy: '', NO_PROXY: 'release.test' }, 'http://release.test/'),
    'via proxy http://h:1',
  );
  assert.equal(
    line({ http_proxy: 'h:1', NO_PROXY: 'release.test' }, 'http://release.test/'),
    'direct (no_proxy release.test)',
  );
});

test('DL-04 loopback is always direct, even with a proxy and no no_proxy', () => {
  const env = { http_proxy: 'h:1', https_proxy: 'h:1', HTTP_PROXY: 'h:1' };
  for (const url of [
    'http://127.0.0.1:8080/',
    'http://127.0.0.2/',
    'http://127.255.255.254/',
    'http://localhost:1/',
    'http://LOCALHOST./',
    'https://[::1]:443/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::ffff:127.0.0.1]/',
  ]) {
    assert.equal(line(env, url), 'direct (loopback)', url);
  }
  for (const url of [
    'http://128.0.0.1/',
    'http://localhost.example/',
    'http://127.0.0.1.nip.io/',
  ]) {
    assert.equal(line(env, url), 'via proxy http://h:1', url);
  }
});

test('DL-04 no_proxy: comma-separated, exact host case-insensitive, suffix forms, spaces trimmed', () => {
  const env = {
    http_proxy: 'h:1',
    https_proxy: 'h:1',
    no_proxy: ' Exact.Example , .dot.example,plain.example ,*.star.example,,',
  };
  const direct: Array<[string, string]> = [
    ['http://exact.example/', 'exact.example'],
    ['http://EXACT.example./', 'exact.example'],
    ['http://a.dot.example/', '.dot.example'],
    ['http://dot.example/', '.dot.example'],
    ['http://plain.example/', 'plain.example'],
    ['http://deep.a.plain.example/', 'plain.example'],
    ['https://x.star.example/', '*.star.example'],
    ['https://star.example/', '*.star.example'],
  ];
  for (const [url, entry] of direct)
    assert.equal(line(env, url), `direct (no_proxy ${entry})`, url);
  for (const url of [
    'http://sub.exact.example.org/',
    'http://notplain.example/',
    'http://example/',
  ]) {
    assert.equal(line(env, url), 'via proxy http://h:1', url);
  }
});

test('DL-04 no_proxy host:port matches that port only (default ports count)', () => {
  const env = {
    http_proxy: 'h:1',
    https_proxy: 'h:1',
    no_proxy: 'a.test:8080,b.test:443,[fd00::1]:80',
  };
  assert.equal(line(env, 'http://a.test:8080/'), 'direct (no_proxy a.test:8080)');
  assert.equal(line(env, 'http://a.test/'), 'via proxy http://h:1');
  assert.equal(line(env, 'https://b.test/'), 'direct (no_proxy b.test:443)');
  assert.equal(line(env, 'https://b.test:8443/'), 'via proxy http://h:1');
  assert.equal(line(env, 'http://[fd00::1]/'), 'direct (no_proxy [fd00::1]:80)');
});

test('DL-04 no_proxy `*` alone means everything, wherever it stands in the list', () => {
  for (const value of ['*', ' * ', 'a.test, *']) {
    assert.equal(
      line({ http_proxy: 'h:1', no_proxy: value }, 'http://release.test/'),
      'direct (no_proxy *)',
      value,
    );
  }
  // A `*` inside a name is not a wildcard beyond the leading `*.` form.
  assert.throws(
    () => parseProxyEnv({ no_proxy: 'a*b.test' }),
    (e) => isOacError(e) && e.message.includes('no_proxy'),
  );
});

test('DL-04 no_proxy IP addresses and CIDR blocks, IPv4 and IPv6', () => {
  const env = {
    http_proxy: 'h:1',
    no_proxy: '10.0.0.0/8,192.168.1.7,fd00:0:0::2,fe80::/10,2001:db8::/32,::ffff:10.9.0.0/112',
  };
  assert.equal(line(env, 'http://[fe80::1234]/'), 'direct (no_proxy fe80::/10)');
  assert.equal(line(env, 'http://[2001:db8:ffff::1]/'), 'direct (no_proxy 2001:db8::/32)');
  assert.equal(line(env, 'http://[2001:db9::1]/'), 'via proxy http://h:1');
  assert.equal(line(env, 'http://[::ffff:10.9.1.2]/'), 'direct (no_proxy ::ffff:10.9.0.0/112)');
  assert.throws(() => parseProxyEnv({ no_proxy: '10.0.0.0/33' }), /no_proxy/);
  assert.throws(() => parseProxyEnv({ no_proxy: 'fe80::/129' }), /no_proxy/);
  assert.throws(() => parseProxyEnv({ no_proxy: 'fe80:::1' }), /no_proxy/);
  assert.equal(line(env, 'http://10.20.30.40/'), 'direct (no_proxy 10.0.0.0/8)');
  assert.equal(line(env, 'http://11.0.0.1/'), 'via proxy http://h:1');
  assert.equal(line(env, 'http://192.168.1.7/'), 'direct (no_proxy 192.168.1.7)');
  assert.equal(line(env, 'http://[fd00::2]/'), 'direct (no_proxy fd00:0:0::2)');
});

test('DL-04 URL-encoded credentials are decoded; route lines never show them (SEC-03)', () => {
  const settings = parseProxyEnv({
    https_proxy: 'http://us%40er:p%3Ass%40w%25rd@proxy.example:3128',
  });
  assert.deepEqual(settings.https?.credentials, { username: 'us@er', password: 'p:ss@w%rd' });
  assert.equal(settings.https?.url.href, 'http://proxy.example:3128/');
  const route = resolveRoute(settings, new URL('https://release.test/'));
  assert.equal(describeRoute(route), 'via proxy http://***@proxy.example:3128');
  assert.ok(!JSON.stringify({ ...route, credentials: undefined }).includes('ss@w'));
  assert.ok(route.kind === 'proxy' && !route.proxy.href.includes('us'));
  // A user without a password is kept (sent as `user:`, as curl does).
  assert.deepEqual(parseProxyEnv({ http_proxy: 'http://alice@p:1' }).http?.credentials, {
    username: 'alice',
    password: '',
  });
});

test("DL-04 host:port without a scheme is http://host:port; a missing port is curl's 1080", () => {
  assert.equal(
    parseProxyEnv({ http_proxy: 'proxy.example:3128' }).http?.url.href,
    'http://proxy.example:3128/',
  );
  assert.equal(
    parseProxyEnv({ http_proxy: 'proxy.example' }).http?.display,
    'http://proxy.example:1080',
  );
  assert.equal(
    parseProxyEnv({ http_proxy: 'http://proxy.example:80' }).http?.display,
    'http://proxy.example:80',
  );
  assert.equal(
    parseProxyEnv({ https_proxy: 'https://proxy.example' }).https?.display,
    'https://proxy.example:443',
  );
  assert.equal(
    parseProxyEnv({ http_proxy: ' http://[fd00::3]:8/ ' }).http?.display,
    'http://[fd00::3]:8',
  );
});

test('DL-04 a bad value is one clear error naming the variable, never echoing credentials', () => {
  const cases: Array<[ProxyEnv, string]> = [
    [{ HTTPS_PROXY: 'http://user:s3cr%ZZet@proxy:3128' }, 'HTTPS_PROXY'],
    [{ http_proxy: 'http://user:s3cret@proxy:99999' }, 'http_proxy'],
    [{ https_proxy: 'http://user:s3cret@:3128' }, 'https_proxy'],
    [{ http_proxy: 'socks5://user:s3cret@proxy:1080' }, 'http_proxy'],
    [{ NO_PROXY: 'a.test,b test' }, 'NO_PROXY'],
  ];
  for (const [env, name] of cases) {
    assert.throws(
      () => parseProxyEnv(env),
      (e) =>
        isOacError(e) &&
        ['proxy_invalid', 'proxy_unsupported_scheme', 'no_proxy_invalid'].includes(e.code) &&
        e.message.includes(name) &&
        !e.message.includes('s3c') &&
        !String(e.hint).includes('s3c'),
      JSON.stringify(env),
    );
  }
  // Unused variables are still checked: a typo fails before any download, not halfway.
  assert.throws(() => parseProxyEnv({ https_proxy: 'http://a:b@:1' }), /https_proxy/);
});
