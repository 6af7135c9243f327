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
    'http://localhost:1',
    'http://[::1]:9',
  ]) {
    assert.doesNotThrow(() => parseServiceUrl(url, 'Core'), url);
  }
  for (const host of ['10.0.0.1', '128.0.0.1', 'localhost.example', '127.0.0.1.nip.io', '::2']) {
    assert.equal(isLoopbackHost(host), false, host);
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
