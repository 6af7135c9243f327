import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isOacError } from '../../src/errors.ts';
import { isLoopbackHost, parseServiceUrl } from '../../src/net/url-policy.ts';

test('SEC-01 https is required for Core URLs', () => {
  assert.equal(parseServiceUrl('https://core.example/x', 'Core').origin, 'https://core.example');
  assert.throws(
    () => parseServiceUrl('http://core.example', 'The Core URL'),
    (e) => isOacError(e) && e.code === 'insecure_url' && e.message.includes('https'),
  );
  assert.throws(
    () => parseServiceUrl('ftp://127.0.0.1', 'Core'),
    (e) => isOacError(e) && e.code === 'insecure_url',
  );
});

test('SEC-01 plain http is allowed only for loopback addresses', () => {
  for (const url of [
    'http://127.0.0.1:8080',
    'http://127.9.0.3',
    'http://127.255.255.254',
    'http://localhost:1',
    'http://LOCALHOST:1',
    'http://[::1]:9',
    'http://[0:0:0:0:0:0:0:1]:9',
  ]) {
    assert.doesNotThrow(() => parseServiceUrl(url, 'Core'), url);
  }
  for (const host of ['10.0.0.1', '128.0.0.1', 'localhost.example', '127.0.0.1.nip.io', '::2']) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});

test('SEC-01 SEC-07 loopback is 127.0.0.0/8, ::1 and exactly localhost, never a name under .localhost', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LocalHost']) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  // Node resolves these through DNS like any other name: they may point anywhere.
  for (const host of [
    'a.localhost',
    'core.localhost',
    'localhost.',
    'x.localhost.',
    'localhostx',
  ]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
  // Not addresses in 127.0.0.0/8, nor ::1.
  for (const host of ['127.0.0.256', '127.1', '0.0.0.0', '::ffff:127.0.0.1', '::', '[::2]']) {
    assert.equal(isLoopbackHost(host), false, host);
  }
  for (const url of ['http://core.localhost:8080', 'http://a.b.localhost']) {
    assert.throws(
      () => parseServiceUrl(url, 'Core'),
      (e) => isOacError(e) && e.code === 'insecure_url',
      url,
    );
  }
});

test('SEC-03 a URL carrying credentials is refused and the error does not echo them', () => {
  assert.throws(
    () => parseServiceUrl('https://user:s3cretpass@core.example', 'Core'),
    (e) => isOacError(e) && e.code === 'invalid_url' && !e.message.includes('s3cretpass'),
  );
  assert.throws(
    () => parseServiceUrl('not a url', 'Core'),
    (e) => isOacError(e) && e.code === 'invalid_url',
  );
});
