// SEC-04, SEC-09 fuzzed (issue #26 item 2): the provider file (`--config`), parsed by
// parseProviderFile (src/node/provider-file.ts). Any text (a valid file with fields dropped,
// changed or added, the text itself edited, noise) gives the file or one OacError listing the
// problems, whose lines reach the terminal without a raw control character (a key of the file
// may hold one). A file as the installer writes it (providerFileText: JSON, two-space indent)
// reads back equal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseProviderFile } from '../../src/node/provider-file.ts';
import {
  ALNUM,
  assertPrintable,
  charsOf,
  check,
  hex64,
  hostileString,
  mutatedJson,
  mutatedText,
  outcome,
} from './fuzz-support.ts';

const SOURCE = '/var/lib/oac-node/.oac/nodes/inst-1/provider.json';

const DOCKER = {
  provider: 'docker',
  installation_id: 'inst-1',
  core_url: 'https://core.example',
  generation: 3,
  specification: { image: 'oac-runtime:1', limits: { cpus: 2 } },
  adapter: {
    host: 'unix:///var/run/docker.sock',
    image: 'oac-runtime:1',
    network: 'oac-node-inst-1',
    extra_hosts: ['core.example:10.0.0.1'],
    seccomp_file: '/var/lib/oac-node/seccomp.json',
    nested_sandbox: false,
  },
};

const MICROSANDBOX = {
  provider: 'microsandbox',
  installation_id: 'inst-1',
  core_url: 'https://core.example',
  generation: 1,
  specification: {},
  adapter: {
    helper_path: '/usr/local/lib/oac-node/msb-helper',
    runtime_path: '/usr/local/lib/oac-node/msb',
    firmware_path: '/usr/local/lib/oac-node/libkrunfw.so',
    runtime_sha256: 'a'.repeat(64),
    firmware_sha256: 'b'.repeat(64),
    image: 'oac-runtime:1',
    cpus: 2,
    memory_mib: 2048,
    root_disk_mib: 4096,
    environment_disk_mib: 1024,
    network: 'public',
    runtime_home: '/var/lib/oac-node/.oac/m/run',
    checkpoint_root: '/srv/checkpoints',
  },
};

const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: mutatedJson(DOCKER).map((j) => JSON.stringify(j) ?? '') },
  { weight: 3, arbitrary: mutatedJson(MICROSANDBOX).map((j) => JSON.stringify(j) ?? '') },
  { weight: 2, arbitrary: mutatedText(JSON.stringify(DOCKER, null, 2)) },
  { weight: 1, arbitrary: fc.jsonValue().map((j) => JSON.stringify(j)) },
  { weight: 1, arbitrary: hostileString },
);

test('SEC-04 SEC-09 parseProviderFile: any text gives the file or one OacError whose lines print safely', () => {
  check(
    fc.property(text, (t) => {
      const read = outcome(() => parseProviderFile(t, SOURCE));
      if ('error' in read) {
        assert.equal(read.error.code, 'provider_file_invalid');
        assertPrintable(read.error);
        return;
      }
      assert.ok(read.ok.provider === 'docker' || read.ok.provider === 'microsandbox');
      // What was accepted, written again as the installer writes it, reads back the same.
      assert.deepEqual(parseProviderFile(JSON.stringify(read.ok, null, 2), SOURCE), read.ok);
    }),
  );
});

const absolute = charsOf(`${ALNUM}/._-`, 0, 30).map((p) => `/${p}`);
const positive = fc.integer({ min: 1, max: 2 ** 31 });
const common = {
  installation_id: fc
    .tuple(charsOf(ALNUM, 1, 1), charsOf(`${ALNUM}._-`, 0, 63))
    .map(([a, b]) => a + b),
  core_url: fc.constantFrom('https://core.example', 'http://127.0.0.1:8443', 'https://[fd00::1]/'),
  generation: positive,
  specification: fc.dictionary(charsOf(ALNUM, 1, 8), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 3,
  }),
};
const dockerFile = fc.record({
  provider: fc.constant('docker'),
  ...common,
  adapter: fc.record({
    host: charsOf(`${ALNUM}/._-`, 1, 30).map((p) => `unix:///${p}`),
    image: charsOf(`${ALNUM}:/._-`, 1, 40),
    network: fc.tuple(charsOf(ALNUM, 1, 1), charsOf(`${ALNUM}_.-`, 0, 20)).map(([a, b]) => a + b),
    extra_hosts: fc.array(
      fc
        .tuple(charsOf(`${ALNUM}.-`, 1, 12), charsOf(`${ALNUM}.:`, 1, 12))
        .map(([h, a]) => `${h}:${a}`),
      { maxLength: 3 },
    ),
    seccomp_file: absolute,
    nested_sandbox: fc.boolean(),
  }),
});
const microsandboxFile = fc.record({
  provider: fc.constant('microsandbox'),
  ...common,
  adapter: fc.record(
    {
      helper_path: absolute,
      runtime_path: absolute,
      firmware_path: absolute,
      runtime_sha256: hex64,
      firmware_sha256: hex64,
      image: charsOf(`${ALNUM}:/._-`, 1, 40),
      cpus: positive,
      memory_mib: positive,
      root_disk_mib: positive,
      environment_disk_mib: positive,
      network: fc.constantFrom('public', 'none'),
      runtime_home: charsOf(`${ALNUM}/._-`, 0, 40).map((p) => `/${p}`),
      checkpoint_root: absolute,
    },
    // checkpoint_root alone may be left out (HOST-11).
    {
      requiredKeys: [
        'helper_path',
        'runtime_path',
        'firmware_path',
        'runtime_sha256',
        'firmware_sha256',
        'image',
        'cpus',
        'memory_mib',
        'root_disk_mib',
        'environment_disk_mib',
        'network',
        'runtime_home',
      ],
    },
  ),
});

// A file with every field valid costs more to draw than to check; the 10 000 runs above already
// parse near-valid files, so the round trip takes fewer.
const ROUND_TRIPS = 2_000;

test('SEC-04 a provider file as the installer writes it reads back equal', () => {
  check(
    fc.property(fc.oneof(dockerFile, microsandboxFile), (file) => {
      const written = `${JSON.stringify(file, null, 2)}\n`;
      const read = outcome(() => parseProviderFile(written, SOURCE));
      assert.ok('ok' in read, 'error' in read ? read.error.details.join('; ') : '');
      assert.equal(JSON.stringify(read.ok), JSON.stringify(file));
    }),
    ROUND_TRIPS,
  );
});
