// OPS-01, OPS-03, DL-02, RERUN-04 on a real terminal (tmux): the pasted line on a slow link
// shows the download moving while the node half (oac-node, in its own session) downloads; Ctrl-C
// stops the run between two steps with the guide's "run the command again" line, stopping the
// node half's processes too; a closed terminal (SIGHUP) stops it the same way; the rerun
// resumes the part file (`Resuming …`) and finishes.
// With OAC_E2E_RECORD=FILE the screens are written there (docs/operator-guide.md quotes them).
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { withHostAndCore, type CoreInHost } from './harness/core-pair.ts';
import { issueToken } from './harness/enroll.ts';
import type { E2eHost } from './harness/host.ts';
import { waitUntil } from './harness/wait.ts';
import { testRelease } from './helpers/release.ts';
import { openTerminal, type Terminal } from './helpers/terminal.ts';

const release = testRelease();

const recording = process.env.OAC_E2E_RECORD;
if (recording !== undefined) writeFileSync(recording, '');
function record(moment: string, screen: string): void {
  if (recording !== undefined) appendFileSync(recording, `--- ${moment}\n${screen}\n\n`);
}

interface Slow {
  host: E2eHost;
  core: CoreInHost;
  image: { name: string; size: number };
  command: string;
  installationId: string;
  terminal: Terminal;
}

/** A fresh host whose Runtime image downloads at about 17 KiB/s (a minute for the test
 *  image), and the pasted line running in a terminal, through a private file (it holds the
 *  token: never on a command line). */
function onSlowLink(fn: (slow: Slow) => Promise<void>): Promise<void> {
  return release.dir().then((dir) =>
    withHostAndCore(['--release-dir', dir], async (host, core) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
        files: Array<{ kind: string; name: string; size: number }>;
      };
      const image = manifest.files.find((f) => f.kind === 'runtime-image');
      assert.ok(image);
      const fault = { kind: 'drip', bytes_per_minute: image.size };
      const armed = await core.coreApi('PUT', '/__fixture/faults', { target: image.name, fault });
      assert.equal(armed.status, 204);
      const { command, installationId } = await issueToken(core);
      await host.exec(['sh', '-c', 'umask 077 && cat > /root/line.sh'], { stdin: `${command}\n` });
      const terminal = openTerminal(host, 'bash /root/line.sh; echo "EXIT=$?"; sleep 3600');
      try {
        await fn({ host, core, image, command, installationId, terminal });
      } finally {
        terminal.close();
      }
    }),
  );
}

/** The bytes the screen says arrived of `file`, in MiB (0 if none yet). */
function arrived(screen: string, file: string): number {
  const name = file.replace(/[.]/g, '\\.');
  const last = [...screen.matchAll(new RegExp(`${name}: ([\\d.]+) (KiB|MiB) of`, 'g'))].at(-1);
  return last === undefined ? 0 : Number(last[1]) / (last[2] === 'KiB' ? 1024 : 1);
}

/** OPS-03: nothing of the node half runs on; DL-02: the part stays for the rerun, which resumes
 *  it and finishes. */
async function stoppedAndResumed(slow: Slow): Promise<void> {
  const { host, core, image, command, installationId } = slow;
  // The node half ends within seconds of the installer. Seen twice under CI's load (issue #28):
  // `oac-node _prepare` still listed just after the installer ended. Whether the installer
  // should wait for it to be reaped (OPS-03) is open; until then it gets 10 s, and no more.
  await waitUntil('no process of oac-node to be left', () => host.sh('pgrep -u oac-node -a'), {
    done: (pgrep) => pgrep.status === 1,
    timeoutMs: 10_000,
    intervalMs: 250,
  });
  const part = await host.shOk(
    `stat -c %s /var/lib/oac-node/.oac/nodes/${installationId}/files/${image.name}.part`,
  );
  assert.ok(Number(part) > 0 && Number(part) < image.size, `a part of ${part} bytes is kept`);
  await core.coreApi('DELETE', '/__fixture/faults');
  const rerun = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
  assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
  record('the same line again, its output on a pipe', rerun.stdout.trimEnd());
  const name = image.name.replace(/[.]/g, '\\.');
  assert.match(rerun.stdout, new RegExp(`^ {2}Resuming ${name} at `, 'm'));
  assert.match(rerun.stdout, /is connected and ready/);
}

test('OPS-01 OPS-03 RERUN-04 a terminal shows the download moving; Ctrl-C stops it between steps and the rerun resumes it', async () => {
  await onSlowLink(async (slow) => {
    const { terminal, image } = slow;
    const first = await terminal.waitFor(/(KiB|MiB) of [\d.]+ (KiB|MiB)/);
    record('the download, as it starts', first);
    const before = arrived(first, image.name);
    const later = await waitUntil('more of the download, its rate and time left', terminal.screen, {
      done: (screen) => arrived(screen, image.name) > before && /\/s, .* left/.test(screen),
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    record('once more has arrived', later);
    const after = arrived(later, image.name);
    assert.ok(after > before, `the progress moves: ${before} MiB, then ${after} MiB\n${later}`);
    assert.match(later, /\/s, .* left/, 'rate and time left are shown');

    terminal.keys('C-c');
    const stopped = await terminal.waitFor(/EXIT=\d+/, 60_000);
    record('after Ctrl-C', stopped);
    assert.match(stopped, /^EXIT=130$/m, 'the shell status of a Ctrl-C');
    assert.match(stopped, /^oac-node: Interrupted \(SIGINT\): the run stopped between two steps$/m);
    assert.match(stopped, /hint: Run the same command again to continue/);
    await stoppedAndResumed(slow);
  });
});

test('OPS-03 a closed terminal (SIGHUP) stops the run the same way; the next run continues', async () => {
  await onSlowLink(async (slow) => {
    // Some bytes on the screen, not only the download's start ("0 KiB of …"): a terminal
    // closed before the first byte leaves an empty part, and nothing to resume (CI, issue #28).
    await waitUntil('some of the download on the screen', slow.terminal.screen, {
      done: (screen) => arrived(screen, slow.image.name) > 0,
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    slow.terminal.close(); // the window goes: every process of the terminal gets SIGHUP
    // The installer stops between two steps (up to the node half's 30 s grace).
    // `[n]`: the pattern must not match the shell that runs pgrep itself.
    await waitUntil(
      'the installer to end after its terminal closed',
      () => slow.host.sh("pgrep -f '[n]ode-bootstrap/'"),
      // pgrep's 1 is "none"; any other failure (an exec into a loaded host that failed) is
      // no answer, and must not pass for the installer's end.
      { done: (pgrep) => pgrep.status === 1, timeoutMs: 60_000, intervalMs: 500 },
    );
    await stoppedAndResumed(slow);
  });
});
