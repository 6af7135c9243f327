// SEC-13 (issue #40): the support bundle's scanner finds a secret by its exact value in every
// encoding a log or a document carries it in, also split by a line break, and finds nothing in
// clean text; a short value only as a whole word.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findSecrets, secretForms } from '../../support/secret-scan.ts';

const CREDENTIAL = 'Zk3x-Q9_pL0mN2bV7cX1zA5sD8fG4hJ6kL3qW0eR9tY';
const SECRETS = [{ kind: "the node's credential", value: CREDENTIAL }];
const scan = (text: string) => findSecrets([{ name: 'f', data: Buffer.from(text) }], SECRETS);
const encodingOf = (text: string) => scan(text)[0]?.encoding;

test('SEC-13 raw, URL-encoded, JSON-escaped and hex (either case) are each found', () => {
  const quoted = 'p@ss"wo/rd\\with spaces';
  const q = [{ kind: 'proxy password', value: quoted }];
  const find = (text: string) => findSecrets([{ name: 'f', data: Buffer.from(text) }], q)[0];
  assert.equal(find(`x ${quoted} y`)?.encoding, 'raw');
  assert.equal(find(`http://u:${encodeURIComponent(quoted)}@h`)?.encoding, 'url');
  assert.equal(find(`http://u:${encodeURIComponent(quoted).toLowerCase()}@h`)?.encoding, 'url');
  assert.equal(find(JSON.stringify({ password: quoted }))?.encoding, 'json');
  assert.equal(encodingOf(`dump ${Buffer.from(CREDENTIAL).toString('hex')}`), 'hex');
  assert.equal(encodingOf(`DUMP ${Buffer.from(CREDENTIAL).toString('hex').toUpperCase()}`), 'hex');
});

test('SEC-13 base64 and base64url are found at each of the three alignments inside a longer run', () => {
  for (const alphabet of ['base64', 'base64url'] as const)
    for (const before of ['', 'a', 'ab', 'abc', 'abcd'])
      for (const after of ['', 'z', 'zz', 'zzz']) {
        const run = Buffer.from(`${before}${CREDENTIAL}${after}`).toString(alphabet);
        assert.ok(
          scan(`Authorization: Basic ${run}`).length === 1,
          `${alphabet}, ${before.length} bytes before, ${after.length} after`,
        );
      }
});

test('SEC-13 a secret split by a line break (a wrapped log line), \\n or \\r\\n, is found', () => {
  for (const at of [1, 10, CREDENTIAL.length - 1])
    for (const br of ['\n', '\r\n'])
      assert.equal(
        encodingOf(`log ${CREDENTIAL.slice(0, at)}${br}${CREDENTIAL.slice(at)} end`),
        'raw',
      );
  const b64 = Buffer.from(CREDENTIAL).toString('base64');
  assert.equal(encodingOf(`${b64.slice(0, 20)}\n${b64.slice(20)}`), 'base64');
});

test('SEC-13 clean text holds nothing; a short value counts only as a whole word', () => {
  assert.deepEqual(scan('status: connected and ready\nnode 3b1e… generation 3\n'), []);
  assert.deepEqual(scan(CREDENTIAL.slice(0, 20)), [], 'a part of the value is not the value');
  const short = [{ kind: 'proxy password', value: 'pw' }];
  const find = (text: string) => findSecrets([{ name: 'f', data: Buffer.from(text) }], short);
  assert.deepEqual(find('the pwd and upward'), []);
  assert.equal(find('https://u:pw@proxy')[0]?.encoding, 'raw');
  assert.ok(secretForms('pw').every((f) => !['base64', 'hex'].includes(f.encoding)));
});

test('SEC-13 a log is masked in every form the scanner finds, and then holds nothing', async () => {
  const { maskSecrets } = await import('../../support/secret-scan.ts');
  const b64 = Buffer.from(`x${CREDENTIAL}yz`).toString('base64');
  const log = Buffer.from(
    `raw ${CREDENTIAL}\nhex ${Buffer.from(CREDENTIAL).toString('hex')}\nb64 ${b64}\njson ${JSON.stringify(CREDENTIAL)}\n`,
  );
  const { data, masked } = maskSecrets(log, SECRETS);
  assert.deepEqual(masked, ["the node's credential"]);
  assert.deepEqual(findSecrets([{ name: 'log', data }], SECRETS), []);
  assert.match(data.toString(), /^raw \[masked: the node's credential\]$/m);
  const clean = Buffer.from('nothing secret\n');
  assert.deepEqual(maskSecrets(clean, SECRETS), { data: clean, masked: [] });
});
