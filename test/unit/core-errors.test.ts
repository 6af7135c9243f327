import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coreErrorFromResponse } from '../../src/net/core-errors.ts';
import { MESSAGES } from '../../src/messages.ts';

const route = 'POST /api/v1/sandbox-node/enroll';
const body = (code: string, param?: string) => ({
  error: { code, message: `why ${code}`, ...(param ? { param } : {}) },
});
const map = (status: number, b: unknown, credential: 'token' | 'node' = 'token') =>
  coreErrorFromResponse({ route, status, body: b, credential });

test('ENR-01 401 with a token: "The enrollment command expired or was already used"', () => {
  const e = map(401, body('invalid_node_credential'));
  assert.equal(e.code, 'enrollment_token_refused');
  assert.equal(e.message, 'The enrollment command expired or was already used');
  assert.equal(e.retryable, false);
});

test('NODE-02 401 with a node credential: "Core no longer accepts this node"', () => {
  assert.equal(
    map(401, body('invalid_node_credential'), 'node').message,
    'Core no longer accepts this node',
  );
});

test('ENR-03 every documented error code maps to its own typed error', () => {
  const rows: Array<[number, unknown, string]> = [
    [400, body('invalid_request_error', 'core_url'), 'core_url_required'],
    [400, body('invalid_request'), 'core_refused_request'],
    [409, body('sandbox_specification_mismatch'), 'specification_changed'],
    [409, body('sandbox_node_address_mismatch'), 'core_url_changed'],
    [409, body('idempotency_conflict'), 'node_id_taken'],
    [409, body('sandbox_reset_in_progress'), 'reset_in_progress'],
    [503, body('runtime_node_unavailable'), 'core_not_ready'],
  ];
  for (const [status, b, code] of rows) {
    const e = map(status, b);
    assert.equal(e.code, code, `${status} ${JSON.stringify(b)}`);
    assert.equal(e.status, status);
    assert.equal(e.retryable, status === 503, `${code} retryable`);
  }
});

test("PRE-08 409 sandbox_node_address_mismatch is the guide's line", () => {
  assert.equal(
    map(409, body('sandbox_node_address_mismatch')).message,
    MESSAGES.core_url_changed.message,
  );
  assert.equal(
    MESSAGES.core_url_changed.message,
    "Core's public URL changed after this command was generated",
  );
});

test('issue #2 REL-01 an undocumented answer is named by status and route, never a 500 passed off as a known code; a 5xx is Core failing, retried', () => {
  const e = map(500, 'oops');
  assert.equal(e.code, 'core_server_error');
  assert.equal(e.message, `Core failed to answer ${route} (HTTP 500)`);
  assert.equal(e.retryable, true);
  for (const status of [502, 504]) assert.equal(map(status, undefined).retryable, true);
  for (const status of [501, 505, 511]) {
    const other = map(status, undefined);
    assert.equal(other.code, 'core_unexpected_response', `${status}`);
    assert.equal(other.retryable, false, `${status}`);
  }
  const unknown = map(404, body('not_found'));
  assert.equal(unknown.code, 'core_unexpected_response');
  assert.equal(unknown.message, `Core answered HTTP 404 to ${route}`);
  assert.equal(unknown.retryable, false);
});

test('issue #2 a bare 503 or 401 (from a reverse proxy) still maps by status', () => {
  assert.equal(map(503, undefined).code, 'core_not_ready');
  assert.equal(map(401, undefined).code, 'enrollment_token_refused');
});

test("issue #2 400 invalid_request carries Core's reason on one line", () => {
  const e = map(400, { error: { code: 'invalid_request', message: 'node_id\nis not canonical' } });
  assert.equal(
    e.message,
    `Core refused the request to ${route} as malformed: node_id is not canonical`,
  );
});
