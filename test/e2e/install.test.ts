// Issue #4, end to end: the one-line command from the reference Core's token response, run by
// real sh, curl, sha256sum, flock, gzip (and sudo) in a throwaway Debian 12 host with real
// systemd and Docker, turns it into a node Core lists as connected and ready; a rerun changes
// nothing. (A second Core's command, HOST-10, is refused from the records alone, before anything
// is asked: test/host/refusals.test.ts, issue #28 item 3.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listNodes } from './harness/core-nodes.ts';
import { withHostAndCore, type CoreInHost } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import { type E2eHost } from './harness/host.ts';
import { diffSnapshots } from './harness/snapshot.ts';
import { testRelease } from './helpers/release.ts';

const release = testRelease();

const withHost = (fn: (host: E2eHost, core: CoreInHost) => Promise<void>) =>
  release.dir().then((dir) => withHostAndCore(['--release-dir', dir], fn));

/** Counts the token in every process's argv and environment, sampled until `done` exists. */
const SAMPLER = `n=0; while [ ! -e /root/done ]; do for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do if tr '\\0' '\\n' <"$f" 2>/dev/null | grep -q -F -f /root/.needle; then n=$((n+1)); fi; done; sleep 0.05; done; echo "$n"`;

async function installWithSampling(host: E2eHost, command: string, token: string, user?: string) {
  await host.exec(['sh', '-c', 'umask 077; cat > /root/.needle'], { stdin: `${token}\n` });
  const sampler = host.sh(SAMPLER, { timeoutMs: 600_000 });
  // The line goes to sh on stdin, as a paste into a terminal does: in argv (sh -c) the test
  // itself would put the token where BOOT-05 says it must never be.
  const run = await host.exec(['sh'], { stdin: `${command}\n`, user, timeoutMs: 600_000 });
  await host.sh('touch /root/done');
  const hits = Number((await sampler).stdout.trim());
  return { run, hits };
}

test('BOOT/HOST/ENR issue #4: the generated line, run as root, makes a connected and ready node; a rerun changes nothing', async () => {
  await withHost(async (host, core) => {
    const { token, command, installationId } = await issueToken(core);
    assert.ok(command.startsWith(" echo '"), 'BOOT-01 the line starts with a space');

    const { run, hits } = await installWithSampling(host, command, token);
    const logs =
      run.status === 0
        ? ''
        : (await host.sh('journalctl -u "oac-node-*" --no-pager | tail -40')).stdout;
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}\n${logs}`);
    assert.equal(hits, 0, 'BOOT-05 the token was in no process argument or environment');
    // The guide (l.101): in a root shell, the commands it prints omit sudo.
    assert.match(run.stdout, /^Logs: journalctl -u oac-node-\S+\.service$/m);

    const listed = await listNodes(core);
    assert.equal(listed.length, 1);
    assert.deepEqual(
      { c: listed[0]?.connected, r: listed[0]?.provider_ready, m: listed[0]?.managed },
      { c: true, r: true, m: true },
    );

    // HOST-01/02/03/04/07
    assert.match(
      await host.shOk('getent passwd oac-node'),
      /^oac-node:x:65532:\d+::\/var\/lib\/oac-node:\/usr\/sbin\/nologin$/m,
    );
    assert.match(await host.shOk('id -nG oac-node'), /\bdocker\b/);
    const unit = `oac-node-${installationId}.service`;
    assert.equal(
      (await host.shOk(`systemctl is-enabled ${unit}; systemctl is-active ${unit}`)).trim(),
      'enabled\nactive',
    );
    assert.match(await host.shOk(`systemctl show -p User ${unit}`), /^User=oac-node$/m);
    assert.equal(
      (await host.shOk(`stat -c '%U %a' /var/lib/oac-node/.oac/nodes/${installationId}`)).trim(),
      'oac-node 700',
    );
    assert.match(
      await host.shOk(`docker network ls --format '{{.Name}}'`),
      new RegExp(`^oac-node-${installationId}$`, 'm'),
    );
    assert.match(await host.shOk(`docker image ls --format '{{.Repository}}'`), /^oac-runtime$/m);
    assert.equal(
      (await host.shOk(`stat -c '%a' /etc/oac-node/${installationId}.json`)).trim(),
      '600',
    );

    // SEC-03: the token is in no file written and not in the unit's journal.
    const grep = await host.sh(
      `grep -r -l -F -f /root/.needle /etc /var/lib/oac-node /root/.oac 2>/dev/null; journalctl -u ${unit} --no-pager | grep -c -F -f /root/.needle`,
    );
    assert.equal(grep.stdout.trim(), '0', `token found: ${grep.stdout}`);

    // RERUN-01: the same line again: no token needed (it is used up), nothing changes.
    const before = await host.snapshot();
    const rerun = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
    assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
    assert.doesNotMatch(rerun.stdout, /\b(created|updated|replaced|removed)\b/, rerun.stdout);
    assert.deepEqual(diffSnapshots(before, await host.snapshot()), []);
    assert.equal((await listNodes(core)).length, 1);
  });
});

test("BOOT-04/BOOT-05/SEC-07 run by a sudo-capable user: sudo executes env -i and keeps no variable; the token not in sudo's log", async () => {
  await withHost(async (host, core) => {
    const { token, command } = await issueToken(core);
    const { run, hits } = await installWithSampling(host, command, token, 'operator');
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(hits, 0, 'the token was in no process argument or environment');
    // The line ran through sudo: the commands it prints say sudo, as the operator types them.
    assert.match(run.stdout, /^Logs: sudo journalctl -u oac-node-\S+\.service$/m);
    const listed = await listNodes(core);
    assert.deepEqual(
      { c: listed[0]?.connected, r: listed[0]?.provider_ready },
      { c: true, r: true },
    );
    // BOOT-03: the verified installer is kept in the invoking account's private directory.
    assert.match(
      await host.shOk("stat -c '%U %a' ~operator/.oac/node-bootstrap"),
      /^operator 700$/m,
    );
    // sudo logged the command (to the journal); the token is not in it.
    const sudoLog = await host.sh('journalctl --no-pager _COMM=sudo');
    assert.match(sudoLog.stdout, /COMMAND=.*install --core-url/);
    // SEC-07: what sudo ran is env -i with the fixed PATH; the allowed values came on stdin.
    assert.match(sudoLog.stdout, /COMMAND=\S*env -i PATH=\/usr\/local\/sbin:\S+ \/bin\/sh -c /);
    assert.equal(
      (await host.sh('journalctl --no-pager | grep -c -F -f /root/.needle')).stdout.trim(),
      '0',
    );
  });
});

test('issue #4 FLEET-02 OPS-05 --dry-run prints the plan and changes nothing (exit 2, then 0 once installed); --json prints NDJSON events from a start event to the summary; --quiet only the last line', async () => {
  await withHost(async (host, core) => {
    const { token, command, installationId } = await issueToken(core);
    await host.shOk(
      `install -d -m 0700 /opt/bin && curl -fsS ${core.coreUrl}/node-install/oac-node.gz | gzip -d > /opt/bin/oac-node && chmod 0700 /opt/bin/oac-node`,
    );
    const args = [
      '/opt/bin/oac-node',
      'install',
      '--core-url',
      core.coreUrl,
      '--installation-id',
      installationId,
    ];

    const before = await host.snapshot();
    const plan = await host.exec([...args, '--dry-run'], { stdin: `${token}\n` });
    assert.equal(plan.status, 2, `${plan.stdout}\n${plan.stderr}`);
    assert.match(plan.stdout, /^ {2}create {4}create system user oac-node/m);
    assert.match(plan.stdout, /^Changes would be made\.$/m);
    assert.deepEqual(diffSnapshots(before, await host.snapshot()), [], 'a dry run changes nothing');

    const run = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);

    const again = await host.exec([...args, '--dry-run'], { stdin: '' });
    assert.equal(again.status, 0, `${again.stdout}\n${again.stderr}`);
    assert.match(again.stdout, /^Nothing would change\.$/m);

    // OPS-05 (issue #25): --quiet on a rerun that changes nothing prints its last line only.
    const quiet = await host.exec([...args, '--quiet'], { stdin: '' });
    assert.equal(quiet.status, 0, quiet.stderr);
    assert.match(quiet.stdout, /^Node \S+ is connected and ready\.\n$/);

    const json = await host.exec([...args, '--json'], { stdin: '' });
    assert.equal(json.status, 0, json.stderr);
    const events = json.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            result?: { outcome: string };
            changed?: boolean;
            format?: number;
            command?: string;
            node_id?: string;
            unit?: string;
          },
      );
    assert.ok(events.length > 3);
    // FLEET-02: the first event names the format; the summary says changed, node and unit.
    assert.deepEqual(
      [events[0]?.type, events[0]?.format, events[0]?.command],
      ['start', 1, 'install'],
    );
    assert.match(events.at(-1)?.node_id ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(events.at(-1)?.unit, `oac-node-${installationId}.service`);
    assert.ok(
      events
        .filter((e) => e.type === 'step-done')
        .every((e) => e.result?.outcome === 'unchanged' || e.result?.outcome === 'skipped'),
    );
    assert.deepEqual(events.at(-1)?.type, 'summary');
    assert.equal(events.at(-1)?.changed, false);

    // On a terminal (script gives it one): listr2 phases, each titled with its outcome.
    const tty = await host.exec(
      ['script', '-qec', `stty cols 160 rows 40; ${args.join(' ')} </dev/null`, '/dev/null'],
      {
        env: { TERM: 'xterm' },
      },
    );
    assert.equal(tty.status, 0, tty.stdout);
    assert.match(tty.stdout, /Checked the host, Core and the release/);
    assert.match(tty.stdout, /unchanged +user oac-node/);
    assert.match(tty.stdout, /Node \S+ is connected and ready\./);
  });
});

test('HOST-06 a rerun with a proxy writes the root-only env file and restarts the service; one without removes it', async () => {
  await withHost(async (host, core) => {
    const { command, installationId } = await issueToken(core);
    const unit = `oac-node-${installationId}.service`;
    const envFile = `/etc/oac-node/${installationId}.env`;
    const first = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
    assert.equal(first.status, 0, `${first.stdout}\n${first.stderr}`);
    const started = async () =>
      (await host.shOk(`systemctl show -p ActiveEnterTimestampMonotonic --value ${unit}`)).trim();
    const before = await started();

    // Core is on loopback, which always goes direct (DL-04), so the node stays reachable.
    const proxy = 'http://proxy-user:s3cret@10.255.255.1:3128';
    const withProxy = await host.exec(['sh'], {
      stdin: `export https_proxy='${proxy}' no_proxy=internal.test; ${command}\n`,
      timeoutMs: 600_000,
    });
    assert.equal(withProxy.status, 0, `${withProxy.stdout}\n${withProxy.stderr}`);
    assert.match(withProxy.stdout, /created +\/etc\/oac-node\/\S+\.env/);
    assert.match(withProxy.stdout, /updated +\S+ restarted/);
    assert.doesNotMatch(withProxy.stdout, /s3cret/, 'SEC-03 the proxy password is not printed');
    assert.equal((await host.shOk(`stat -c '%U %a' ${envFile}`)).trim(), 'root 600');
    // Its first line is its digest key (issue #27.5), a comment systemd skips (below: the
    // service's environment holds the variables and nothing else of the file).
    assert.match(
      (await host.shOk(`cat ${envFile}`)).trim(),
      new RegExp(
        `^# oac-node digest key: [0-9a-f]{64}\\nhttps_proxy="${proxy.replace(/[.]/g, '\\.')}"\\nno_proxy="internal\\.test"$`,
      ),
    );
    assert.doesNotMatch(
      await host.shOk(`cat /etc/systemd/system/${unit}`),
      /s3cret|10\.255/,
      'never in the unit',
    );
    assert.match(
      await host.shOk(
        `systemctl show -p Environment ${unit}; cat /proc/$(systemctl show -p MainPID --value ${unit})/environ | tr '\\0' '\\n'`,
      ),
      /^https_proxy=http:\/\/proxy-user:s3cret@10\.255\.255\.1:3128$/m,
    );
    assert.notEqual(await started(), before, 'the service was restarted');

    const without = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
    assert.equal(without.status, 0, `${without.stdout}\n${without.stderr}`);
    assert.match(without.stdout, /removed +\/etc\/oac-node\/\S+\.env/);
    assert.equal((await host.sh(`test -e ${envFile}`)).status, 1);
    const listed = await listNodes(core);
    assert.deepEqual(
      { c: listed[0]?.connected, r: listed[0]?.provider_ready },
      { c: true, r: true },
    );
  });
});
