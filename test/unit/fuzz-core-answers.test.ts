// SEC-04, SEC-03, SEC-09 fuzzed (issue #26 item 2): Core's JSON answers, read by the CoreClient
// (src/net/core-client.ts) through sendJson (src/net/http-json.ts) and coreErrorFromResponse
// (src/net/core-errors.ts). Whatever Core answers (any status; a configuration, identity or
// error body with fields dropped, changed or added; text cut short; noise; a message quoting the
// token, with control characters), each call gives data that fits its schema or one CoreError
// (an OacError) whose printed lines hold no raw control character and neither the token nor
// the node credential. A configuration as Core writes it reads back equal. The answers come
// from undici's MockAgent: no socket is opened.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { MockAgent } from 'undici';
import { CoreClient } from '../../src/net/core-client.ts';
import { CoreError } from '../../src/net/core-errors.ts';
import { nodeConfiguration, nodeIdentity, nodeIdentityView } from '../../src/net/core-schemas.ts';
import { redactor } from '../../src/redact.ts';
import {
  assertPrintable,
  checkAsync,
  fileBytes,
  hostileString,
  mutatedJson,
  outcomeAsync,
} from './fuzz-support.ts';

const ORIGIN = 'https://core.example';
const TOKEN = 'EXAMPLE-enrollment-token-0123456789';
const NODE_ID = '0b6e2f9d-9d0c-4c35-8f1f-5a2d8e1c4b02';
const CREDENTIAL = 'node-credential-0123456789abcdefghijklmnop';
// As the CLI does before any request (SEC-03): printed text passes the redactor.
redactor.add(TOKEN);
redactor.add(CREDENTIAL);

/** The answer the next request gets. */
let answer: { status: number; body: Buffer } = { status: 200, body: Buffer.from('{}') };
const agent = new MockAgent();
agent.disableNetConnect();
agent
  .get(ORIGIN)
  .intercept({ path: () => true, method: () => true })
  .reply(() => ({ statusCode: answer.status, data: answer.body }))
  .persist();
after(() => agent.close());

const client = new CoreClient({
  coreUrl: ORIGIN,
  dispatcher: agent,
  // One try: a 503 is retried with a backoff of seconds, and one answer is what is fuzzed.
  retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
});

const CONFIGURATION = {
  installation_id: 'inst-1',
  provider: 'docker',
  core_url: ORIGIN,
  generation: 2,
  specification: { image: 'oac-runtime:1' },
  specification_digest: 'sha256:abc',
  max_active: 4,
  max_retained: 8,
};
const IDENTITY = {
  node_id: NODE_ID,
  installation_id: 'inst-1',
  provider: 'microsandbox',
  deployment_generation: 2,
  specification_digest: 'sha256:abc',
  max_active: 4,
  max_retained: 8,
  connected: true,
  provider_ready: false,
};
const ERROR = { error: { code: 'invalid_node_credential', message: 'expired', param: 'token' } };
const ERROR_CODES = [
  'invalid_request_error',
  'invalid_request',
  'invalid_node_credential',
  'sandbox_specification_mismatch',
  'sandbox_node_address_mismatch',
  'idempotency_conflict',
  'sandbox_reset_in_progress',
  'runtime_node_unavailable',
];
const json = (value: unknown) => Buffer.from(JSON.stringify(value) ?? '', 'utf8');

// An error message as a hostile Core or a proxy in front of it may write one.
const errorBody = fc
  .record({
    code: fc.oneof(fc.constantFrom(...ERROR_CODES), hostileString),
    message: fc.oneof(
      hostileString,
      fc.constantFrom(
        `token ${TOKEN} refused`,
        `\u001b[2J${CREDENTIAL}\r\n`,
        'a\u202eb',
        'x'.repeat(1001),
      ),
    ),
    param: fc.constantFrom('core_url', 'token', undefined),
  })
  .map((error) => ({ error }));

const body: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 3, arbitrary: mutatedJson(CONFIGURATION).map(json) },
  { weight: 3, arbitrary: mutatedJson(IDENTITY).map(json) },
  { weight: 2, arbitrary: mutatedJson(ERROR).map(json) },
  { weight: 2, arbitrary: errorBody.map(json) },
  { weight: 1, arbitrary: fileBytes(JSON.stringify(CONFIGURATION)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(Buffer.alloc(0), Buffer.from('<html>bad gateway</html>')),
  },
);
const status = fc.oneof(
  fc.constantFrom(200, 200, 200, 201, 204, 400, 401, 403, 404, 409, 418, 500, 502, 503),
  fc.integer({ min: 200, max: 599 }),
);
const call = fc.constantFrom('configuration', 'identity', 'enroll');

const ENROLL = {
  node_id: NODE_ID,
  credential: CREDENTIAL,
  name: 'host-1',
  provider: 'docker' as const,
  backend_fingerprint: 'docker:1',
  deployment_generation: 2,
  specification_digest: 'sha256:abc',
  core_url: ORIGIN,
};

function ask(which: string): Promise<unknown> {
  if (which === 'configuration') return client.readConfiguration({ kind: 'token', token: TOKEN });
  if (which === 'identity') return client.identity(NODE_ID, CREDENTIAL);
  return client.enroll(TOKEN, ENROLL);
}
const SHAPES = {
  configuration: nodeConfiguration,
  identity: nodeIdentityView,
  enroll: nodeIdentity,
};

test('SEC-04 SEC-03 SEC-09 any answer of Core gives data that fits its schema or one CoreError that prints safely', async () => {
  await checkAsync(
    fc.asyncProperty(call, status, body, async (which, s, b) => {
      answer = { status: s, body: b };
      const read = await outcomeAsync(() => ask(which));
      if ('error' in read) {
        assert.ok(read.error instanceof CoreError, read.error.code);
        assertPrintable(read.error, { masked: [TOKEN, CREDENTIAL] });
        return;
      }
      assert.ok(s >= 200 && s <= 299, `accepted with HTTP ${s}`);
      const shape = SHAPES[which as keyof typeof SHAPES];
      assert.ok(shape.safeParse(read.ok).success);
    }),
  );
});

const configuration = fc.record({
  installation_id: fc.string({ minLength: 1, maxLength: 40 }),
  provider: fc.constantFrom('docker' as const, 'microsandbox' as const),
  core_url: fc.webUrl(),
  generation: fc.integer({ min: 1, max: 2 ** 31 }),
  specification: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 3,
  }),
  specification_digest: fc.string({ minLength: 1, maxLength: 80 }),
  max_active: fc.nat(),
  max_retained: fc.nat(),
});

test('SEC-04 a configuration as Core writes it reads back equal', async () => {
  await checkAsync(
    fc.asyncProperty(configuration, async (c) => {
      const written = JSON.stringify(c);
      answer = { status: 200, body: Buffer.from(written) };
      const read = await client.readConfiguration({ kind: 'token', token: TOKEN });
      assert.equal(JSON.stringify(read), written);
    }),
    2_000,
  );
});
