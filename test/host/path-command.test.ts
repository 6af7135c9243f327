// Issue #25 item 2: `oac-node` on PATH. The install writes /usr/local/sbin/oac-node (a resource
// like any other: journaled, refused when someone else's file is there, removed by uninstall),
// a small sh script that runs the installation's program, so the hints' `sudo oac-node status`
// works as written; `status` and `uninstall` without --installation-id take the one installation
// the host records. Root's half on a scratch --root tree (test/helpers/root-half.ts), and the
// built executable for the command line.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { OacError } from '../../src/errors.ts';
import { PATH_COMMAND, PROGRAM_ROOT } from '../../src/layout.ts';
import { PATH_COMMAND_MARK, renderPathCommand } from '../../src/resources/path-command.ts';
import { uninstall } from '../../uninstaller/uninstall.ts';
import { requireExecutable } from '../helpers/executable.ts';
import { ID, installRootHalf, names } from '../helpers/root-half.ts';
import { makeScratchRoot, treeOf } from '../helpers/scratch-root.ts';

let root: string;
let program: string;
const command = () => join(root, PATH_COMMAND);

beforeEach(() => {
  root = makeScratchRoot();
  // A node program that says what it was given, so the command's pass-through shows.
  program = join(root, '..', `${root.split('/').pop()}-program`);
  writeFileSync(program, '#!/bin/sh\nprintf "program: %s\\n" "$@"\n', { mode: 0o755 });
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(program, { force: true });
});

/** The installed command, run with its program directory mapped into the scratch tree. */
function runCommand(args: string[]) {
  const text = readFileSync(command(), 'utf8').replaceAll(PROGRAM_ROOT, join(root, PROGRAM_ROOT));
  return spawnSync('sh', ['-c', text, 'oac-node', ...args], { encoding: 'utf8' });
}

test('HOST-03 issue #25: the install puts oac-node on PATH, root 0755, and it runs the installed program with the same arguments', async () => {
  await installRootHalf(root, program);
  assert.equal(readFileSync(command(), 'utf8'), renderPathCommand());
  assert.equal(
    treeOf(root)['usr/local/sbin/oac-node']?.split(' ').slice(0, 3).join(' '),
    'file 0755 0:0',
  );
  // RERUN-01: a rerun reads the command's digest from the cache its first write left, and
  // writes nothing, not even the journal (e2e's install test found it written once).
  const journal = join(root, names.journal);
  const written = { text: readFileSync(journal, 'utf8'), at: statSync(journal).mtimeMs };
  await installRootHalf(root, program);
  assert.deepEqual({ text: readFileSync(journal, 'utf8'), at: statSync(journal).mtimeMs }, written);
  const run = runCommand(['status', 'two words']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, 'program: status\nprogram: two words\n');
  // Without any installation's program it says so in one line, as a missing command does.
  rmSync(join(root, names.program));
  const none = runCommand(['status']);
  assert.equal(none.status, 127);
  assert.match(none.stderr, /^oac-node: no installation's program is left on this host/);
});

test('HOST-03 SEC-02 issue #25: another program at /usr/local/sbin/oac-node is refused in one line before any write, never replaced', async () => {
  writeFileSync(command(), '#!/bin/sh\necho the operator own oac-node\n', { mode: 0o755 });
  const before = treeOf(root);
  const error = await installRootHalf(root, program).then(
    () => assert.fail('the operator file was replaced'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OacError, String(error));
  assert.equal(error.code, 'path_taken');
  assert.equal(
    error.message,
    "/usr/local/sbin/oac-node is there, and oac-node's installer did not write it",
  );
  assert.deepEqual(treeOf(root), before, 'nothing changed');
});

test('HOST-03 SEC-02 issue #25: a FIFO there is refused without blocking; a link to an installation program (an operator own shortcut) is replaced', async () => {
  execFileSync('mkfifo', ['-m', '0644', command()]);
  const fifo = await installRootHalf(root, program).then(
    () => assert.fail('a FIFO was replaced'),
    (e: unknown) => e,
  );
  assert.ok(fifo instanceof OacError && fifo.code === 'path_taken', String(fifo));
  rmSync(command());
  symlinkSync(`${PROGRAM_ROOT}/${ID}/oac-node`, command());
  await installRootHalf(root, program);
  assert.equal(readFileSync(command(), 'utf8'), renderPathCommand(), 'the link became the file');
  // A link anywhere else is someone else's.
  rmSync(command());
  symlinkSync('/usr/bin/true', command());
  await assert.rejects(
    installRootHalf(root, program),
    (e: unknown) => e instanceof OacError && e.code === 'path_taken',
  );
});

test('HOST-03 PRE-09 issue #25: without /usr/local/sbin the plan is refused before any write', async () => {
  rmSync(join(root, 'usr/local/sbin'), { recursive: true });
  const before = treeOf(root);
  const error = await installRootHalf(root, program).then(
    () => assert.fail('installed without /usr/local/sbin'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OacError, String(error));
  assert.equal(error.code, 'directory_missing');
  assert.equal(
    error.message,
    '/usr/local/sbin does not exist, and the installer puts a file there',
  );
  assert.deepEqual(treeOf(root), before, 'nothing changed');
});

test('HOST-03 issue #25: an earlier version of the installer own command is brought up to date', async () => {
  writeFileSync(command(), `#!/bin/sh\n${PATH_COMMAND_MARK}\nexec /old/path "$@"\n`, {
    mode: 0o700,
  });
  await installRootHalf(root, program);
  assert.equal(readFileSync(command(), 'utf8'), renderPathCommand());
});

test('UNI-02 issue #25: uninstall removes the command; one replaced by someone after the install is kept, and said so', async () => {
  await installRootHalf(root, program);
  const removed = await uninstall(
    { root, installationId: ID, force: false, dryRun: false },
    () => undefined,
  );
  assert.equal(existsSync(command()), false, 'removed with the installation');
  assert.ok(!removed.kept.some((k) => k.includes(PATH_COMMAND)), removed.kept.join('\n'));

  await installRootHalf(root, program);
  writeFileSync(command(), '#!/bin/sh\necho replaced\n');
  const kept = await uninstall(
    { root, installationId: ID, force: false, dryRun: false },
    () => undefined,
  );
  assert.ok(
    kept.kept.includes(`${PATH_COMMAND} (not the installer's: someone replaced it)`),
    kept.kept.join('\n'),
  );
  assert.equal(readFileSync(command(), 'utf8'), '#!/bin/sh\necho replaced\n');
});

test('issue #25: status and uninstall without --installation-id take the one installation recorded, and ask when there are two', async () => {
  const exe = requireExecutable();
  await installRootHalf(root, program);
  const cli = (...args: string[]) =>
    spawnSync(exe, [...args, '--root', root], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
  const status = cli('status');
  assert.match(status.stdout, /^Node of installation inst-1 \(Core /, status.stderr);
  const plan = cli('uninstall', '--dry-run');
  assert.equal(plan.status, 2, plan.stderr);
  assert.match(plan.stdout, /^ {2}remove {4}remove \/usr\/local\/sbin\/oac-node$/m);

  copyFileSync(join(root, names.journal), join(root, '/etc/oac-node/inst-2.json'));
  const before = treeOf(root);
  for (const args of [['status'], ['uninstall', '--force']]) {
    const run = cli(...args);
    assert.equal(run.status, 64, run.stderr);
    assert.equal(
      run.stderr.split('\n')[0],
      'oac-node: This host records more than one installation (inst-1, inst-2): name one with --installation-id',
    );
  }
  assert.deepEqual(treeOf(root), before, 'nothing changed');
});

test('UPG-02 UNI-06 uninstall without a record removes the program an interrupted upgrade kept, and with it the program directories', async () => {
  await installRootHalf(root, program);
  // An upgrade killed after it kept the previous program, and then the record lost.
  copyFileSync(join(root, names.program), join(root, names.previousProgram));
  rmSync(join(root, names.journal));
  const removed = await uninstall(
    { root, installationId: ID, force: true, dryRun: false },
    () => undefined,
  );
  assert.equal(removed.recorded, false);
  for (const path of [names.previousProgram, names.program, names.programDir])
    assert.equal(existsSync(join(root, path)), false, `${path} removed`);
  assert.ok(!removed.kept.some((k) => k.includes(names.programDir)), removed.kept.join('\n'));
});
