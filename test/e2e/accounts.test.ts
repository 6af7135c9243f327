// Issue #5, the accounts and the record, end to end in a throwaway host (HOST-01, UNI-03, UNI-06):
// an adopted account survives uninstall with exactly its own groups; a foreign `oac-node` and a
// foreign UID 65532 are refused before anything changes; and a host whose record was deleted is
// uninstalled as far as can be proved, keeping the account and saying so.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { removeNodesInCore } from './harness/core-nodes.ts';
import { hostWithCore } from './harness/core-pair.ts';
import { installByLine, issueToken } from './harness/enroll.ts';
import { beyondKeptImage, diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';

// One host for the file (issue #28): each test leaves it as it found it, but for the Runtime
// image, which uninstall keeps (UNI-04) and every test's comparison sets aside or ignores.
const release = testRelease();
const pair = hostWithCore(async () => ['--release-dir', await release.dir()]);
before(() => pair.boot());

test('HOST-01 a foreign oac-node account and a foreign UID 65532 are refused before anything changes', async () => {
  const { host, core } = pair;
  const line = async () => (await issueToken(core)).command;
  await host.shOk('useradd --system --shell /bin/sh oac-node');
  // The next tests need the name and the UID free, whatever this one found.
  try {
    await refusedTwice();
  } finally {
    await host.sh('userdel oac-node; userdel someone');
  }
  async function refusedTwice() {
    let unchanged = await host.snapshot();
    let run = await host.exec(['sh'], { stdin: `${await line()}\n`, timeoutMs: 300_000 });
    assert.notEqual(run.status, 0);
    assert.match(
      run.stderr,
      /^oac-node: An account named oac-node already exists \(UID \d+, home \/home\/oac-node, shell \/bin\/sh\) and is not the node's account$/m,
    );
    assert.deepEqual(diffSnapshots(unchanged, await host.snapshot()), [], 'nothing changed');

    await host.shOk('userdel oac-node && useradd --uid 65532 --shell /bin/bash someone');
    unchanged = await host.snapshot();
    run = await host.exec(['sh'], { stdin: `${await line()}\n`, timeoutMs: 300_000 });
    assert.notEqual(run.status, 0);
    assert.match(
      run.stderr,
      /^oac-node: Another account \(someone\) holds UID 65532, which the node's account needs$/m,
    );
    assert.deepEqual(diffSnapshots(unchanged, await host.snapshot()), [], 'nothing changed');
    assert.match(await host.shOk('getent passwd someone'), /^someone:x:65532:/, 'untouched');
  }
});

test('HOST-01 UNI-03 an adopted account survives uninstall with its own groups and home, the docker group removed', async () => {
  const { host, core } = pair;
  await host.shOk(
    'useradd --system --uid 65532 --home-dir /var/lib/oac-node --create-home --shell /usr/sbin/nologin --groups users oac-node && chmod 0700 /var/lib/oac-node',
  );
  // The account this test made goes, whatever happened: the next test needs the name free.
  try {
    const pristine = await host.snapshot();
    const { uninstall, output } = await installByLine(host, core);
    assert.match(output, /\badopted\b.*user oac-node/, output);
    assert.equal(
      (await host.shOk('id -nG oac-node')).trim().split(' ').sort().join(' '),
      'docker oac-node users',
    );

    await removeNodesInCore(core);
    const removed = await host.exec(uninstall);
    assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
    assert.match(removed.stdout, /user oac-node \(adopted: it was there before the installer\)/);
    assert.match(
      removed.stdout,
      /\/var\/lib\/oac-node \(adopted: it was there before the installer\)/,
    );
    assert.equal(
      (await host.shOk('id -nG oac-node')).trim().split(' ').sort().join(' '),
      'oac-node users',
    );
    assert.deepEqual(
      beyondKeptImage(diffSnapshots(pristine, await host.snapshot())),
      [],
      'as before',
    );
  } finally {
    await host.sh('userdel --remove oac-node');
  }
});

test('UNI-06 without its record, uninstall removes what it can prove is ours and keeps the account, saying so', async () => {
  const { host, core } = pair;
  const pristine = await host.snapshot();
  const { uninstall, installationId } = await installByLine(host, core);
  await host.shOk(`rm /etc/oac-node/${installationId}.json`);
  await removeNodesInCore(core);

  const removed = await host.exec(uninstall);
  assert.equal(removed.status, 0, `${removed.stdout}\n${removed.stderr}`);
  assert.match(removed.stdout, new RegExp(`no record of installation ${installationId} was found`));
  assert.match(removed.stdout, /user oac-node \(no record shows the installer created it\)/);
  const unit = `oac-node-${installationId}.service`;
  assert.equal(
    (await host.sh(`systemctl list-unit-files ${unit} --no-legend | wc -l`)).stdout.trim(),
    '0',
    'the unit is gone',
  );
  const left = beyondKeptImage(diffSnapshots(pristine, await host.snapshot()));
  assert.ok(left.length > 0, 'the account is kept');
  for (const line of left) {
    assert.match(
      line,
      /^(\/etc\/(passwd|group|shadow|gshadow) [-+](docker|oac-node):|\/var\/lib\/oac-node(: added|\/\.oac))/,
      `only the account, its groups and its home remain:\n${left.join('\n')}`,
    );
  }
  assert.doesNotMatch(
    await host.shOk(`docker network ls --format '{{.Name}}'`),
    new RegExp(`oac-node-${installationId}`),
    'the network is gone',
  );
  assert.equal(
    (await host.sh(`ls /usr/local/lib/oac-node /var/lib/oac-node/.oac/nodes 2>&1`)).stdout.includes(
      installationId,
    ),
    false,
    'the program and the node state are gone',
  );
});
