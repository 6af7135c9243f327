// NODE-06 (issue #40): root's side of a copied host, on a scratch root (the built executable, as
// root, --root) whose /etc/machine-id is not the one the node was registered on. `status` names
// it as its own problem, first, with both fixes as exact commands, asks Core nothing and exits 78;
// a rerun of the install and an uninstall that would ask Core refuse with the same line before
// anything changes. With the node's own machine ID, none of this is said.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hostIdOf } from '../../src/node/host-id.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { assertStatusDocument } from '../helpers/json-contract.ts';
import { CORE, ID, installRootHalf, names, programFor } from '../helpers/root-half.ts';
import { makeScratchRoot, removeScratchRoot, treeOf } from '../helpers/scratch-root.ts';
import { registeredIdentity } from '../helpers/identity-file.ts';

const ORIGINAL = '0d5c1f4e2b7a48d69e3f5a1b2c3d4e5f';
const COPY = '7a9e0c2d4f6b48a1b3c5d7e9f1a3b5c7';
const NODE_ID = '5815ecf4-2a8e-4c1b-9d7e-0f1a2b3c4d5e';
const CREDENTIAL = 'Zk3x-Q9_pL0mN2bV7cX1zA5sD8fG4hJ6kL3qW0eR9tY';

let exe: string;
let root: string;
before(async () => {
  exe = requireExecutable();
  root = makeScratchRoot();
  await installRootHalf(root, programFor(root));
  const state = join(root, names.stateDir);
  mkdirSync(state, { recursive: true, mode: 0o700 });
  const identity = join(root, names.identityFile);
  writeFileSync(identity, JSON.stringify(identityOnOriginal()), { mode: 0o600 });
  for (const path of [join(root, 'var/lib/oac-node/.oac'), dirOf(state), state, identity])
    chownSync(path, 65532, 65532);
  machineId(COPY);
});
after(() => removeScratchRoot(root));

const dirOf = (path: string) => path.slice(0, path.lastIndexOf('/'));
const machineId = (id: string) => writeFileSync(join(root, 'etc/machine-id'), `${id}\n`);

function identityOnOriginal() {
  const fields = { nodeId: NODE_ID, installationId: ID, credential: CREDENTIAL, coreUrl: CORE };
  return registeredIdentity(fields, { host_id: hostIdOf(ORIGINAL) });
}

const oacNode = (...args: string[]) =>
  spawnSync(exe, [...args, '--root', root], {
    encoding: 'utf8',
    input: '',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    timeout: 60_000,
  });

test('NODE-06 status on a copy: its own problem first, both fixes as commands, Core not asked, exit 78', () => {
  const r = oacNode('status', '--json');
  assert.equal(r.status, 78, r.stderr);
  assertStatusDocument(r.stdout, 'status on a copy');
  const s = JSON.parse(r.stdout) as {
    other_host: boolean;
    problems: string[];
    next: string[];
    core: { state: string; detail?: string };
  };
  assert.equal(s.other_host, true);
  assert.match(s.problems[0] ?? '', new RegExp(`^Node ${NODE_ID} was registered on another host`));
  assert.deepEqual(
    [s.core.state, s.core.detail],
    ['unknown', 'not asked: the node belongs to another host'],
  );
  assert.match(
    s.next[0] ?? '',
    new RegExp(`oac-node uninstall --installation-id ${ID} --force, then copy the line from Web`),
  );
  assert.match(
    s.next[1] ?? '',
    new RegExp(
      `oac-node install --core-url ${CORE} --installation-id ${ID} --same-host < /dev/null$`,
    ),
  );
  const text = oacNode('status');
  assert.equal(text.status, 78);
  assert.match(text.stdout, /was registered on another host/);
});

test('NODE-06 a rerun and an uninstall on a copy refuse with the same line (78), and change nothing', () => {
  const before = treeOf(root);
  const rerun = oacNode('install', '--core-url', CORE, '--installation-id', ID);
  assert.equal(rerun.status, 78, rerun.stderr);
  assert.match(
    rerun.stderr,
    new RegExp(`^oac-node: Node ${NODE_ID} was registered on another host`),
  );
  const uninstall = oacNode('uninstall');
  assert.equal(uninstall.status, 78, uninstall.stderr);
  assert.match(
    uninstall.stderr,
    /was registered on another host.*\n.*uninstall --installation-id inst-1 --force/,
  );
  assert.deepEqual(treeOf(root), before);
});

test("NODE-06 on the node's own host (its machine ID) status says nothing of a copy", () => {
  machineId(ORIGINAL);
  try {
    const r = oacNode('status', '--json');
    const s = JSON.parse(r.stdout) as { other_host: boolean; problems: string[] };
    assert.equal(s.other_host, false);
    assert.notEqual(r.status, 78);
    assert.ok(!s.problems.some((p) => /another host/.test(p)), s.problems.join('\n'));
  } finally {
    machineId(COPY);
  }
});
