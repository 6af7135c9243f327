// Issue #38 item 6: the golden --root tree through the whole command, not just root's
// reconcile (test/host/reconcile-root.test.ts): the built executable's `install` and
// `uninstall`, as the line runs them (token on stdin), on a scratch --root tree of a microsandbox
// host (no Docker needed), against the reference Core serving a real release. The install plans
// and applies everything, the node half included (its files in the root), and then waits for a
// node no one starts here (--root starts no unit): it ends with `never_connected`, everything
// else done. In a private mount namespace whose /var/lib is an empty scratch directory: the
// host's own node state is never reached (HOST-08).
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TestCore } from '../helpers/core.ts';
import { listNodes, issueToken } from '../helpers/node.ts';
import { microsandboxRoot, runWithVarLib, type RootRun } from '../helpers/microsandbox-root.ts';
import { treeDiff, treeOf } from '../helpers/scratch-root.ts';

const ID = '7e2f3a4b-5c6d-4e7f-8a9b-0c1d2e3f4a55';
// useradd's backups and lock file, and the installer's lock (kept in /run like dpkg's): no
// resource of ours (as in reconcile-root.test.ts); /dev/kvm, a device (unreadable as a file).
const BACKUPS = /^etc\/([a-z]+-|\.pwd\.lock)$|^run\/oac-node(\/installer\.lock)?$|^dev\/kvm$/;

let scratch: string;
let core: TestCore;
let root: string;
let hostVarLib: string;

before(async () => {
  ({ scratch, core, root } = await microsandboxRoot('/tmp/oac-gold-', ID));
  hostVarLib = join(scratch, 'host-var-lib');
  mkdirSync(hostVarLib, { mode: 0o755 });
});
after(async () => {
  await core?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

type Run = RootRun;

/** The executable with `args`, `--root` and `--json`, in a mount namespace whose /var/lib is
 *  `hostVarLib`. */
const oacNode = (args: string[], stdin = ''): Promise<Run> =>
  runWithVarLib(hostVarLib, [...args, '--root', root, '--json'], stdin);

const install = (token: string | null, more: string[] = []) =>
  oacNode(
    [
      ...['install', '--core-url', core.core_url, '--installation-id', ID, '--name', 'node-1'],
      ...['--timeout', '1', ...more],
    ],
    token === null ? '' : `${token}\n`,
  );
const uninstall = (more: string[] = []) => oacNode(['uninstall', '--installation-id', ID, ...more]);
const shown = (r: Run) => `exit ${r.status}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
const endOf = (r: Run) => r.events.findLast((e) => e.type === 'error')?.code;
const outcomes = (r: Run) =>
  Object.fromEntries(
    r.events.flatMap((e) =>
      e.type === 'step-done' && e.step !== undefined ? [[e.step, e.result?.outcome]] : [],
    ),
  );

/** A path with what depends on the release's bytes (digests, the release ID) named instead. */
const general = (path: string) =>
  path
    .replace(/[0-9a-f]{64}/g, '<sha256>')
    .replace(/oac-0\.0\.0-[0-9a-f]{12}-/, 'oac-0.0.0-<release>-');

const STATE = `var/lib/oac-node/.oac/nodes/${ID}`;
const IMAGE = 'var/lib/oac-node/.oac/m/images/<sha256>';
const FILES = `${STATE}/files/oac-0.0.0-<release>-linux-amd64-microsandbox`;

test('DECL-01 RERUN-01 UNI-01 UNI-02 UNI-03 golden, the whole command: install makes exactly the expected tree, a rerun changes nothing, uninstall is refused while Core lists the node and then restores the initial tree', async () => {
  const initial = treeOf(root, BACKUPS);
  const first = await install(await issueToken(core));
  // Everything is done but the wait for a node no one starts here.
  assert.equal(endOf(first), 'never_connected', shown(first));
  assert.deepEqual(outcomes(first), {
    'account:oac-node': 'created',
    'group-membership:kvm': 'created',
    'directory:home': 'created',
    'directory:program-root': 'created',
    'directory:program': 'created',
    'program-previous': 'skipped',
    program: 'created',
    'path-command': 'created',
    'directory:man': 'created',
    'man-page': 'created',
    'node:directory:.oac': 'created',
    'node:directory:.oac/nodes': 'created',
    'node:state': 'created',
    'node:files': 'created',
    'node:microsandbox-runtime': 'created',
    'node:microsandbox-firmware': 'created',
    'node:microsandbox-helper': 'created',
    'node:store': 'created',
    'node:store-images': 'created',
    'node:store-run': 'created',
    'node:store-checkpoints': 'created',
    'node:runtime': 'created',
    'node:provider-file': 'created',
    'node:enroll': 'created',
    node: 'updated',
    'proxy-settings': 'skipped',
    unit: 'created',
    service: 'created',
    'upgrade-rollback': 'skipped',
  });
  const installed = treeOf(root, BACKUPS);
  const diff = treeDiff(initial, installed);
  assert.deepEqual(
    { ...diff, added: diff.added.map(general) },
    {
      added: [
        'etc/oac-node',
        `etc/oac-node/${ID}.json`,
        `etc/systemd/system/multi-user.target.wants/oac-node-${ID}.service`,
        `etc/systemd/system/oac-node-${ID}.service`,
        'usr/local/lib/oac-node',
        `usr/local/lib/oac-node/${ID}`,
        `usr/local/lib/oac-node/${ID}/oac-node`,
        'usr/local/sbin/oac-node',
        'usr/local/share/man/man1',
        'usr/local/share/man/man1/oac-node.1',
        'var/lib/oac-node',
        'var/lib/oac-node/.oac',
        'var/lib/oac-node/.oac/m',
        'var/lib/oac-node/.oac/m/checkpoints',
        'var/lib/oac-node/.oac/m/images',
        IMAGE,
        `${IMAGE}/blobs`,
        `${IMAGE}/blobs/sha256`,
        `${IMAGE}/blobs/sha256/<sha256>`,
        `${IMAGE}/blobs/sha256/<sha256>`,
        `${IMAGE}/blobs/sha256/<sha256>`,
        `${IMAGE}/index.json`,
        `${IMAGE}/manifest.json`,
        `${IMAGE}/oci-layout`,
        `${IMAGE}/repositories`,
        'var/lib/oac-node/.oac/m/run',
        'var/lib/oac-node/.oac/nodes',
        STATE,
        `${STATE}/digests.json`,
        `${STATE}/files`,
        `${FILES}-firmware.bin`,
        `${FILES}-helper`,
        `${FILES}-runtime.bin`,
        `${STATE}/identity.json`,
        `${STATE}/provider.json`,
        'var/log/oac-node',
        `var/log/oac-node/${ID}.last-run.jsonl`,
      ],
      removed: [],
      changed: ['etc/group', 'etc/gshadow', 'etc/passwd', 'etc/shadow'],
    },
  );
  const meta = (path: string) => installed[path]?.split(' ').slice(0, 3).join(' ');
  assert.equal(meta('etc/oac-node'), 'dir 0700 0:0');
  assert.equal(meta(`etc/oac-node/${ID}.json`), 'file 0600 0:0', 'the journal: root only');
  assert.equal(meta(`etc/systemd/system/oac-node-${ID}.service`), 'file 0644 0:0');
  assert.match(meta(`${STATE}/identity.json`) ?? '', /^file 0600 65532:/, "the node's own secret");
  // OPS-06 (issue #39): the run's events, root's alone; the manual page, for everyone.
  assert.equal(meta('var/log/oac-node'), 'dir 0700 0:0');
  assert.equal(meta(`var/log/oac-node/${ID}.last-run.jsonl`), 'file 0600 0:0');
  assert.equal(meta('usr/local/share/man/man1/oac-node.1'), 'file 0644 0:0');

  // RERUN-01: the same command again (no token: the node is registered) changes nothing.
  const rerun = await install(null);
  assert.equal(endOf(rerun), 'never_connected', shown(rerun));
  const changed = Object.entries(outcomes(rerun)).filter(
    ([, o]) => !['unchanged', 'skipped'].includes(o ?? ''),
  );
  assert.deepEqual(changed, [], shown(rerun));
  assert.deepEqual(treeOf(root, BACKUPS), installed, 'a rerun writes nothing');
  // DECL-03, issue #38: the dry run shows the node half's steps one row each, as data.
  const preview = await install(null, ['--dry-run']);
  assert.equal(preview.status, 0, `nothing to change\n${shown(preview)}`);
  const nodeRows = preview.events.flatMap((e) =>
    e.type === 'step-plan' && e.step?.startsWith('node:') ? [[e.step, e.action?.kind]] : [],
  );
  for (const part of ['node:files', 'node:microsandbox-runtime', 'node:enroll'])
    assert.deepEqual(
      nodeRows.find(([s]) => s === part),
      [part, 'unchanged'],
      `${part}\n${shown(preview)}`,
    );
  assert.deepEqual(treeOf(root, BACKUPS), installed, 'a dry run writes nothing');
  // DECL-01, issue #38: status's refresh-only plan holds the node step: the node half's plan,
  // one row per step, as install made it; Core lists the node, never connected (exit 6).
  const status = await oacNode(['status', '--installation-id', ID]);
  assert.equal(status.status, 6, shown(status));
  const report = JSON.parse(status.stdout) as {
    node_half: { state: string };
    resources: { key: string; state: string }[];
  };
  assert.deepEqual(report.node_half, { state: 'checked' }, shown(status));
  for (const key of ['node:files', 'node:microsandbox-runtime', 'node:enroll', 'state', 'unit'])
    assert.equal(report.resources.find((r) => r.key === key)?.state, 'present', key);
  assert.deepEqual(treeOf(root, BACKUPS), installed, 'status writes nothing');

  // UNI-01: while Core lists the node, the dry run shows every step and the refusal; the
  // uninstall itself is refused; both leave the tree as it is.
  const removal = await uninstall(['--dry-run']);
  assert.equal(removal.status, 1, shown(removal));
  assert.equal(endOf(removal), 'core_still_lists', shown(removal));
  const planned = removal.events.filter((e) => e.type === 'step-plan').map((e) => e.step);
  for (const step of ['service', 'unit', 'state', 'program', 'account:oac-node'])
    assert.ok(planned.includes(step), `${step} in the preview\n${shown(removal)}`);
  const refused = await uninstall();
  assert.equal(refused.status, 1, shown(refused));
  assert.equal(endOf(refused), 'core_still_lists', shown(refused));
  assert.deepEqual(treeOf(root, BACKUPS), installed, 'a refused uninstall changes nothing');

  // Removed on Nodes (as Web does it), the uninstall removes all of it: the initial tree.
  const [node, ...others] = await listNodes(core);
  assert.ok(node !== undefined && others.length === 0, 'Core lists the one node');
  const removed = await core.coreApi('DELETE', `/core/v1/sandbox/nodes/${node.node_id}`);
  assert.equal(removed.status, 204);
  const gone = await uninstall();
  assert.equal(gone.status, 0, shown(gone));
  assert.deepEqual(treeOf(root, BACKUPS), initial, 'the uninstall restores the initial tree');
  assert.deepEqual(treeOf(hostVarLib), {}, "HOST-08: the host's own /var/lib never reached");
});
