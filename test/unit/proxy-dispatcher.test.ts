// DL-04 / SEC-03 on the dispatcher without traffic: it is built from a snapshot of the six
// variables, routes with our resolver, prints route lines without credentials and registers the
// credentials for redaction. Traffic through real proxies: test/host/download-proxy.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isOacError } from '../../src/errors.ts';
import { createDispatcher } from '../../src/net/dispatcher.ts';
import { Redactor } from '../../src/redact.ts';

test('DL-04 the dispatcher routes with our resolver and describes each route', async () => {
  const redactor = new Redactor();
  const d = createDispatcher({
    env: {
      https_proxy: 'http://us%40er:pa%3Ass@proxy.example:3128',
      http_proxy: 'plain.example:8080',
      no_proxy: '.internal.example',
    },
    redactor,
  });
  try {
    assert.equal(
      d.describeRoute('https://release.example/x'),
      'via proxy http://***@proxy.example:3128',
    );
    assert.equal(
      d.describeRoute('http://release.example/x'),
      'via proxy http://plain.example:8080',
    );
    assert.equal(d.describeRoute('http://127.0.0.1:9/x'), 'direct (loopback)');
    assert.equal(
      d.describeRoute('https://a.internal.example/'),
      'direct (no_proxy .internal.example)',
    );
    const route = d.route(new URL('https://release.example/'));
    assert.equal(route.kind, 'proxy');
  } finally {
    await d.close();
  }
});

test('SEC-03 proxy credentials are registered for redaction (plain, encoded and as Basic token)', async () => {
  const redactor = new Redactor();
  const d = createDispatcher({ env: { HTTPS_PROXY: 'http://alice:s3cr%40t@proxy:1' }, redactor });
  await d.close();
  const token = Buffer.from('alice:s3cr@t').toString('base64');
  const text = redactor.redact(`a s3cr@t b s3cr%40t c alice:s3cr@t d Basic ${token}`);
  assert.ok(!text.includes('s3cr'), text);
  assert.ok(!text.includes(token), text);
});

test('DL-04 the environment is read once, when the dispatcher is built', async () => {
  const saved = process.env.https_proxy;
  process.env.https_proxy = 'http://first.example:1';
  const d = createDispatcher();
  process.env.https_proxy = 'http://second.example:2';
  try {
    assert.equal(d.describeRoute('https://release.example/'), 'via proxy http://first.example:1');
  } finally {
    if (saved === undefined) delete process.env.https_proxy;
    else process.env.https_proxy = saved;
    await d.close();
  }
});

test('DL-04 a bad proxy variable stops the dispatcher from being built, naming the variable', () => {
  assert.throws(
    () => createDispatcher({ env: { http_proxy: 'http://u:p%zz@proxy:1' } }),
    (e) => isOacError(e) && e.code === 'proxy_invalid' && e.message.includes('http_proxy'),
  );
});
