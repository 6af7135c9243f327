// Issue #5 item 3, `status` end to end: the record against the host against Core. A fresh node
// shows no drift (exit 0); a unit edited by hand, a group membership removed and a replaced
// program are each reported (exit 2, drift) until a rerun of the install command restores them; a node
// removed in Core is reported as removed. The node half's steps are status's too (issue #23): a
// Runtime image removed from Docker is reported missing until a rerun loads it again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { removeNodeInCore } from './harness/core-nodes.ts';
import { withInstalledHost } from './harness/installed.ts';
import { testRelease } from './helpers/release.ts';
import { assertJsonEvents } from '../helpers/json-contract.ts';

const release = testRelease();

interface Status {
  format: number;
  problems: string[];
  core: { state: string; node_id?: string };
  resources: Array<{ key: string; state: string }>;
}

test('issue #5 DECL-01 status: no drift after install; hand edits, a lost group, a swapped program and a removed Runtime image reported until a rerun; Core removal reported', async () => {
  await withInstalledHost(release, async ({ host, core, line }) => {
    const { command, installationId, uninstall } = line;
    const status = [...uninstall.slice(0, 4), 'status', '--installation-id', installationId];
    const json = async () => {
      const r = await host.exec([...status, '--json']);
      return { status: r.status, body: JSON.parse(r.stdout) as Status };
    };

    // Issue #25 item 2: the hints' own words work. `oac-node` is on PATH (sudo's secure_path),
    // and status takes the host's one installation without its ID.
    const clean = await host.exec(['sh', '-c', 'sudo oac-node status']);
    assert.equal(clean.status, 0, `${clean.stdout}\n${clean.stderr}`);
    assert.match(clean.stdout, /^Core: node \S+ connected and ready$/m);
    assert.match(clean.stdout, /^No drift/m);
    // OPS-06 (issue #39): the program, what it serves, the last run that changed the host and
    // where its events are: root's alone, the --json contract, without the token.
    assert.match(clean.stdout, /^Program: oac-node \S+; serving generation \d+, release \S+$/m);
    assert.match(clean.stdout, /^Last change: \S+ \S+ UTC, install of \S+ \(done\)$/m);
    const log = `/var/log/oac-node/${installationId}.last-run.jsonl`;
    assert.match(
      clean.stdout,
      new RegExp(`^ {2}its events: (sudo )?cat ${log.replaceAll('.', '\\.')}$`, 'm'),
    );
    assert.equal(
      (await host.shOk(`stat -c '%a %U' ${log} /var/log/oac-node`)).trim(),
      '600 root\n700 root',
    );
    const events = await host.shOk(`cat ${log}`);
    assertJsonEvents(events, 'the kept run');
    assert.match(events, /"type":"summary"/);
    const token = /done; echo; printf %s "([^"]+)"; echo; \} \|/.exec(command)?.[1] ?? '';
    assert.ok(token.length > 10, 'the line carries a token');
    assert.ok(!events.includes(token), 'SEC-03: the kept events hold no token');
    const first = (await json()).body;
    assert.deepEqual(first.problems, []);
    assert.equal(first.format, 1, 'the document has a format (issue #25)');

    // Issue #23 DECL-01: the node half's part of the plan is in status too. The Runtime image
    // removed from Docker is drift, and a rerun loads it again.
    const runtime = (await json()).body.resources.find((r) => r.key === 'node:runtime');
    assert.equal(runtime?.state, 'present', JSON.stringify((await json()).body.resources));
    await host.shOk(
      `docker image rm $(docker image ls --format '{{.Repository}}:{{.Tag}}' oac-runtime) >/dev/null`,
    );
    const noImage = await json();
    assert.equal(noImage.status, 2, 'drift: a rerun repairs it');
    assert.deepEqual(
      noImage.body.resources.filter((r) => r.state !== 'present').map((r) => [r.key, r.state]),
      [['node:runtime', 'missing']],
    );
    assert.match(noImage.body.problems.join('\n'), /^node Runtime image: download \S+ and load /m);
    // OPS-06 (issue #39 item 7): status names the exact repair, which needs no token; run as it
    // is printed, it loads the image again.
    const told = await host.exec(status);
    const repair = /^ {2}- Repair the host with: (.+)$/m.exec(told.stdout)?.[1] ?? '';
    assert.match(repair, /^oac-node install --core-url \S+ --installation-id \S+ < \/dev\/null$/);
    const reloaded = await host.exec(['sh', '-c', repair], { timeoutMs: 300_000 });
    assert.equal(reloaded.status, 0, `${reloaded.stdout}\n${reloaded.stderr}`);
    assert.deepEqual((await json()).body.problems, [], 'the rerun loaded the image again');

    const unit = `/etc/systemd/system/oac-node-${installationId}.service`;
    const program = `/usr/local/lib/oac-node/${installationId}/oac-node`;
    await host.shOk(
      // The running program cannot be written (ETXTBSY): a changed copy is renamed over it.
      `echo 'Environment=EDITED=1' >> ${unit} && gpasswd -d oac-node docker && cp ${program} ${program}.new && echo >> ${program}.new && mv ${program}.new ${program}`,
    );
    const drift = await host.exec(status);
    assert.equal(drift.status, 2, drift.stdout);
    assert.match(drift.stdout, /unit .*: edited by hand/);
    assert.match(
      drift.stdout,
      /membership oac-node in docker: oac-node is no longer in group docker/,
    );
    assert.match(drift.stdout, /file .*oac-node: its SHA-256 is [0-9a-f]{64}, not the installed/);
    assert.match(drift.stdout, /^3 problems:$/m, drift.stdout);
    const drifted = (await json()).body.resources.filter((r) => r.state !== 'present');
    assert.deepEqual(drifted.map((r) => r.key).sort(), [
      'group-membership:docker',
      'program',
      'unit',
    ]);

    // OPS-06 (issue #39 item 7): a program that is not the installed one is not run to repair
    // the host: status sends the operator to the line from Web, whose rerun restores all three.
    assert.match(drift.stdout, /^ {2}- The program here is not the installed one: .*Web/m);
    assert.doesNotMatch(drift.stdout, /Repair the host with/);
    const rerun = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 300_000 });
    assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
    const restored = await host.exec(status);
    assert.equal(restored.status, 0, restored.stdout);
    assert.match(restored.stdout, /^Last change: \S+ \S+ UTC, rerun of \S+ \(done\)$/m);

    // Core removed the node: status says so.
    const nodeId = (await json()).body.core.node_id ?? '';
    await removeNodeInCore(core, nodeId);
    const removed = await json();
    assert.equal(
      removed.status,
      6,
      'Core no longer has the node (its service stops: no drift to rerun)',
    );
    assert.equal(removed.body.core.state, 'removed');
  });
});
