// The installer's root-side steps (HOST-01, HOST-02, HOST-03, HOST-05, HOST-06) with real
// useradd/usermod --prefix and systemctl --root on a scratch tree: the machine's own users,
// groups and units are never touched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { accountStep } from '../../installer/account.ts';
import type { InstallContext } from '../../installer/context.ts';
import { groupStep } from '../../installer/group.ts';
import { homeStep } from '../../installer/home.ts';
import { startStep } from '../../installer/start.ts';
import { envFileStep, unitStep, type RestartFlag } from '../../installer/unit.ts';
import { Journal, journalPath } from '../../records/journal.ts';
import type { EngineEvent } from '../../src/engine/events.ts';
import { runSteps } from '../../src/engine/runner.ts';
import type { Step } from '../../src/engine/step.ts';
import { OacError } from '../../src/errors.ts';
import { addSystemUser } from '../../src/host/accounts.ts';
import { Host } from '../../src/host/host.ts';

const ID = 'inst-1';
const CORE = 'http://127.0.0.1:9';
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'oac-root-'));
  mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
  mkdirSync(join(root, 'var/lib'), { recursive: true });
  for (const file of ['passwd', 'group', 'shadow', 'gshadow', 'login.defs'])
    copyFileSync(`/etc/${file}`, join(root, 'etc', file));
  // The provider group, as Docker's package would have made it.
  const groups = readFileSync(join(root, 'etc/group'), 'utf8');
  if (!/^docker:/m.test(groups)) execFileSync('groupadd', ['--prefix', root, '--system', 'docker']);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const steps = [accountStep, groupStep, homeStep, envFileStep, unitStep, startStep] as Array<
  Step<InstallContext & RestartFlag, never>
>;

async function runRootSteps(proxyEnv: Record<string, string> = {}) {
  const host = new Host(root);
  const journal = await Journal.open(host, ID, CORE);
  const docker = /^docker:[^:]*:(\d+):/m.exec(readFileSync(join(root, 'etc/group'), 'utf8'));
  const events: EngineEvent[] = [];
  const ctx: InstallContext & RestartFlag = {
    host,
    journal,
    emit: (e) => events.push(e),
    token: undefined,
    options: { coreUrl: CORE, installationId: ID, name: 'n', dryRun: false, proxyEnv },
    providerGroup: { name: 'docker', gid: Number(docker?.[1]), path: '/var/run/docker.sock' },
  };
  const report = await runSteps(steps, ctx, { dryRun: false, emit: ctx.emit });
  return {
    report,
    outcomes: Object.fromEntries(report.steps.map((s) => [s.step, s.result?.outcome])),
    journal: journal.snapshot,
  };
}

/** An oac-node account exactly as the installer makes it, but made before the installer ran. */
function addNodeAccountByHand(): Promise<void> {
  return addSystemUser(new Host(root), {
    name: 'oac-node',
    uid: 65532,
    home: '/var/lib/oac-node',
    shell: '/usr/sbin/nologin',
  });
}

const passwdLine = () =>
  readFileSync(join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('oac-node:'));

test('HOST-01/HOST-03/HOST-05 a first run creates the account, home, unit and journal; a rerun says unchanged and writes nothing', async () => {
  const first = await runRootSteps();
  assert.deepEqual(first.outcomes, {
    account: 'created',
    group: 'created',
    home: 'created',
    'proxy-settings': 'skipped',
    unit: 'created',
    service: 'created',
  });
  assert.match(
    passwdLine() ?? '',
    /^oac-node:x:65532:\d+::\/var\/lib\/oac-node:\/usr\/sbin\/nologin$/,
  );
  assert.match(
    readFileSync(join(root, 'etc/group'), 'utf8'),
    /^docker:[^:]*:\d+:(.*,)?oac-node(,.*)?$/m,
  );
  const home = statSync(join(root, 'var/lib/oac-node'));
  assert.equal(home.uid, 65532);
  assert.equal(home.mode & 0o777, 0o750);
  const unit = readFileSync(join(root, `etc/systemd/system/oac-node-${ID}.service`), 'utf8');
  for (const line of [
    'User=oac-node',
    'Restart=on-failure',
    'RestartSec=5',
    'RestartPreventExitStatus=78',
    `EnvironmentFile=-/etc/oac-node/${ID}.env`,
  ]) {
    assert.ok(unit.split('\n').includes(line), line);
  }
  assert.equal(
    statSync(join(root, `etc/systemd/system/oac-node-${ID}.service`)).mode & 0o777,
    0o644,
  );
  assert.match(
    readlinkSync(join(root, `etc/systemd/system/multi-user.target.wants/oac-node-${ID}.service`)),
    /oac-node-inst-1\.service$/,
  );
  const journalFile = join(root, journalPath(ID));
  assert.equal(statSync(journalFile).mode & 0o777, 0o600);
  assert.equal(first.journal.resources['account:oac-node']?.ownership, 'owned');
  assert.equal(first.journal.resources['group-membership:docker']?.ownership, 'owned');

  const before = {
    journal: readFileSync(journalFile),
    mtime: statSync(journalFile).mtimeMs,
    unit: statSync(join(root, `etc/systemd/system/oac-node-${ID}.service`)).mtimeMs,
  };
  const second = await runRootSteps();
  assert.deepEqual(second.outcomes, {
    account: 'unchanged',
    group: 'unchanged',
    home: 'unchanged',
    'proxy-settings': 'skipped',
    unit: 'unchanged',
    service: 'unchanged',
  });
  assert.equal(second.report.changed, false);
  assert.deepEqual(readFileSync(journalFile), before.journal);
  assert.equal(statSync(journalFile).mtimeMs, before.mtime, 'the journal was not rewritten');
  assert.equal(
    statSync(join(root, `etc/systemd/system/oac-node-${ID}.service`)).mtimeMs,
    before.unit,
  );
});

test('HOST-01 an existing account with UID 65532, the home and a nologin shell is adopted', async () => {
  await addNodeAccountByHand();
  const { outcomes, journal } = await runRootSteps();
  assert.equal(outcomes.account, 'adopted');
  assert.equal(journal.resources['account:oac-node']?.ownership, 'adopted');
});

test('HOST-01 another account named oac-node is refused and nothing changes', async () => {
  execFileSync(
    'useradd',
    [
      '--prefix',
      root,
      '--uid',
      '1234',
      '--home-dir',
      '/home/x',
      '--shell',
      '/bin/bash',
      'oac-node',
    ],
    { stdio: 'ignore' },
  );
  const before = readFileSync(join(root, 'etc/passwd'));
  await assert.rejects(
    runRootSteps(),
    (e) =>
      e instanceof OacError &&
      e.code === 'account_foreign' &&
      /An account named oac-node already exists \(UID 1234/.test(e.message),
  );
  assert.deepEqual(readFileSync(join(root, 'etc/passwd')), before);
  assert.equal(existsSync(join(root, journalPath(ID))), false, 'no journal written');
});

test('HOST-01 another account holding UID 65532 stops the run, changing nothing', async () => {
  execFileSync(
    'useradd',
    ['--prefix', root, '--system', '--uid', '65532', '--no-create-home', 'someone'],
    { stdio: 'ignore' },
  );
  const before = readFileSync(join(root, 'etc/passwd'));
  await assert.rejects(
    runRootSteps(),
    (e) => e instanceof OacError && e.code === 'uid_taken' && /someone/.test(e.message),
  );
  assert.deepEqual(readFileSync(join(root, 'etc/passwd')), before);
});

test('HOST-06 proxy settings: written 0600, replaced by other settings, removed by a run without a proxy', async () => {
  const envFile = join(root, `etc/oac-node/${ID}.env`);
  const first = await runRootSteps({
    https_proxy: 'http://user:p%40ss@proxy.test:3128',
    no_proxy: 'core.test',
  });
  assert.equal(first.outcomes['proxy-settings'], 'created');
  assert.equal(statSync(envFile).mode & 0o777, 0o600);
  assert.equal(
    readFileSync(envFile, 'utf8'),
    'https_proxy="http://user:p%40ss@proxy.test:3128"\nno_proxy="core.test"\n',
  );
  const unit = readFileSync(join(root, `etc/systemd/system/oac-node-${ID}.service`), 'utf8');
  assert.doesNotMatch(unit, /proxy\.test/, 'never in the unit');
  const second = await runRootSteps({ http_proxy: 'http://other.test:8080' });
  assert.equal(second.outcomes['proxy-settings'], 'replaced');
  assert.equal(readFileSync(envFile, 'utf8'), 'http_proxy="http://other.test:8080"\n');
  const third = await runRootSteps();
  assert.equal(third.outcomes['proxy-settings'], 'removed');
  assert.equal(existsSync(envFile), false);
});

test('HOST-05 intent is recorded before the change: a run that dies after useradd is continued as ours', async () => {
  const host = new Host(root);
  const journal = await Journal.open(host, ID, CORE);
  await journal.intend('account:oac-node', 'account', 'oac-node');
  await addNodeAccountByHand();
  const { outcomes, journal: after } = await runRootSteps();
  assert.equal(outcomes.account, 'unchanged');
  assert.equal(
    after.resources['account:oac-node']?.ownership,
    'owned',
    'not mistaken for an adopted account',
  );
});
