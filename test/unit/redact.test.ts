import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redactor } from '../../src/redact.ts';

test('SEC-03 registered secrets are masked, also URL-encoded, longest first', () => {
  const r = new Redactor();
  r.add('tok_abc/def+ghi');
  r.add('tok_abc');
  const text = r.redact('token tok_abc/def+ghi and tok_abc%2Fdef%2Bghi and tok_abc');
  assert.equal(text, 'token *** and *** and ***');
});

test('SEC-03 any Bearer value is masked even when it was never registered', () => {
  const r = new Redactor();
  assert.equal(r.redact('Authorization: Bearer abc.def-123'), 'Authorization: Bearer ***');
});

test('SEC-03 very short strings are not treated as secrets (they would mask ordinary words)', () => {
  const r = new Redactor();
  r.add('ab');
  assert.equal(r.redact('about'), 'about');
});

test('SEC-03 a secret holding " or \\ is masked inside JSON text too (a message quoting a body)', () => {
  const r = new Redactor();
  const credential = 'AAAA"BBBB\\CCCC';
  r.add(credential);
  const json = r.redact(JSON.stringify({ credential, also: `x ${credential} y` }));
  assert.ok(!json.includes('BBBB'), json);
  assert.deepEqual(JSON.parse(json), { credential: '***', also: 'x *** y' });
});
