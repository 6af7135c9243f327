// HOST-06, SEC-04 fuzzed (issue #26 item 2): the env file's writer and reader
// (records/env-file.ts). Every value renderEnvFile accepts reads back exactly, through the string
// and through the bytes systemd would read; what it refuses it refuses with an OacError naming
// the variable, never the value (a proxy password). parseEnvFile takes any bytes, a written file
// mutated or cut short among them, and returns the variables or one OacError, never a value in
// its line. Whether systemd's own parser agrees is shown by the host test (EnvironmentFile= on a
// real unit, test/host/env-file.test.ts); here the grammar is the one the module's header quotes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseEnvFile, renderEnvFile } from '../../records/env-file.ts';
import { PROXY_VARIABLES } from '../../src/net/proxy-env.ts';
import { assertPrintable, check, fileBytes, hostileString, outcome } from './fuzz-support.ts';

const PATH = '/etc/oac-node/inst-1.env';
const KEY = '5e'.repeat(32);
// A marker no message template holds: if it is in a line, a value was echoed.
const SECRET = 'Pw-9f3kq-SECRET';

// Values a proxy variable may really hold (URLs with credentials, no_proxy lists), and any text.
const value: fc.Arbitrary<string> = fc.oneof(
  hostileString,
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc
    .tuple(fc.webUrl(), fc.string({ maxLength: 8 }))
    .map(([url, pw]) => url.replace('://', `://u:${pw}${SECRET}@`)),
  fc.constantFrom('', '\\', '"', '\\"', '$HOME', '`x`', 'a\\', '\\\\"', ' lead', 'trail '),
);

const env = fc.dictionary(fc.constantFrom(...PROXY_VARIABLES), value, { maxKeys: 6 });

test('HOST-06 SEC-04 renderEnvFile: what it writes parseEnvFile reads back equal; what it refuses is an OacError naming no value', () => {
  check(
    fc.property(env, (vars) => {
      const written = outcome(() => renderEnvFile(vars, KEY));
      if ('error' in written) {
        assert.equal(written.error.code, 'proxy_control_character');
        // The refused value (it holds a control character, so no template holds it) and the
        // password are in no line.
        const refused = Object.values(vars).filter((v) => /[\u0000-\u001f\u007f]/.test(v));
        assertPrintable(written.error, { unmasked: [SECRET, ...refused] });
        return;
      }
      if (written.ok === undefined) {
        assert.deepEqual({ ...vars }, {}, 'only an empty environment writes no file');
        return;
      }
      const expected = Object.fromEntries(Object.entries(vars));
      assert.deepEqual({ ...parseEnvFile(written.ok, PATH) }, expected);
      assert.deepEqual({ ...parseEnvFile(Buffer.from(written.ok, 'utf8'), PATH) }, expected);
    }),
  );
});

// A file as the writer makes it, with a password in it, for the mutations to start from.
const VALID = renderEnvFile(
  {
    https_proxy: `http://alice:${SECRET}@proxy.example:3128`,
    no_proxy: '.example.com,10.0.0.0/8',
    HTTP_PROXY: 'proxy.example:3128',
  },
  KEY,
) as string;

test('HOST-06 SEC-04 parseEnvFile: any bytes give the six variables or one OacError without a value', () => {
  check(
    fc.property(
      fc.oneof(
        fileBytes(VALID),
        hostileString.map((s) => `${s}\n`),
      ),
      (bytes) => {
        const read = outcome(() => parseEnvFile(bytes, PATH));
        if ('error' in read) {
          assert.equal(read.error.code, 'proxy_settings_damaged');
          assertPrintable(read.error, { unmasked: [SECRET] });
          return;
        }
        for (const [name, v] of Object.entries(read.ok)) {
          assert.ok((PROXY_VARIABLES as readonly string[]).includes(name), name);
          assert.equal(typeof v, 'string');
        }
        // What was read, written again, reads back the same (the reader takes nothing the
        // writer could not have written).
        const again = renderEnvFile(read.ok as Record<string, string>, KEY);
        if (again !== undefined) assert.deepEqual(parseEnvFile(again, PATH), read.ok);
      },
    ),
  );
});
