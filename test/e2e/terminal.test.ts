// OPS-01, OPS-03, DL-02, RERUN-04 on a real terminal (tmux): the pasted line on a slow link
// shows the download moving while the node half (oac-node, in its own session) downloads; Ctrl-C
// stops the run between two steps with the guide's "run the command again" line, stopping the
// node half's processes too; the rerun resumes the part file (`Resuming …`) and finishes.
// With OAC_E2E_RECORD=FILE the screens are written there (docs/operator-guide.md quotes them).
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bootHost, type E2eHost } from './harness/host.ts';
import { startCoreInHost, type CoreInHost } from './helpers/core-in-host.ts';
import { fromLine } from './helpers/install-line.ts';
import { testRelease } from './helpers/release.ts';
import { openTerminal, type Terminal } from './helpers/terminal.ts';

const release = testRelease();
let host: E2eHost;
let core: CoreInHost;
let terminal: Terminal | undefined;
let image: { name: string; size: number };

before(async () => {
  host = await bootHost();
  const dir = await release.dir();
  core = await startCoreInHost(host, ['--release-dir', dir]);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    files: Array<{ kind: string; name: string; size: number }>;
  };
  const file = manifest.files.find((f) => f.kind === 'runtime-image');
  assert.ok(file);
  image = file;
});
after(async () => {
  terminal?.close();
  await core?.stop();
  await host?.stop();
});

const recording = process.env.OAC_E2E_RECORD;
if (recording !== undefined) writeFileSync(recording, '');
function record(moment: string, screen: string): void {
  if (recording !== undefined) appendFileSync(recording, `--- ${moment}\n${screen}\n\n`);
}

/** The bytes the screen says arrived of the Runtime image, in MiB (undefined if none). */
function arrived(screen: string): number | undefined {
  const name = image.name.replace(/[.]/g, '\\.');
  const all = [...screen.matchAll(new RegExp(`${name}: ([\\d.]+) (KiB|MiB) of`, 'g'))];
  const last = all.at(-1);
  if (last === undefined) return undefined;
  return Number(last[1]) / (last[2] === 'KiB' ? 1024 : 1);
}

test('OPS-01 OPS-03 RERUN-04 a terminal shows the download moving; Ctrl-C stops it between steps and the rerun resumes it', async () => {
  // About a minute for the whole image: a slow link.
  const fault = { kind: 'drip', bytes_per_minute: image.size };
  const armed = await core.coreApi('PUT', '/__fixture/faults', { target: image.name, fault });
  assert.equal(armed.status, 204);
  const issued = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
  const { command } = issued.body as { command: string };
  const { installationId } = fromLine(command);
  // The line goes through a private file, never the terminal's command line (it holds the token).
  await host.exec(['sh', '-c', 'umask 077 && cat > /root/line.sh'], { stdin: `${command}\n` });
  terminal = openTerminal(host, 'bash /root/line.sh; echo "EXIT=$?"; sleep 3600');

  const first = await terminal.waitFor(/(KiB|MiB) of [\d.]+ (KiB|MiB)/);
  record('the download, as it starts', first);
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const later = terminal.screen();
  record('four seconds later', later);
  const before = arrived(first) ?? 0;
  const after4s = arrived(later) ?? 0;
  assert.ok(after4s > before, `the progress moves: ${before} MiB, then ${after4s} MiB\n${later}`);
  assert.match(later, /\/s, .* left/, 'rate and time left are shown');

  terminal.keys('C-c');
  const stopped = await terminal.waitFor(/EXIT=\d+/, 60_000);
  record('after Ctrl-C', stopped);
  assert.match(stopped, /^EXIT=130$/m, 'the shell status of a Ctrl-C');
  assert.match(stopped, /^oac-node: Interrupted \(SIGINT\): the run stopped between two steps$/m);
  assert.match(stopped, /hint: Run the same command again to continue/);
  // OPS-03: the node half's processes stopped too; the part file stays for the rerun (DL-02).
  const left = await host.sh('pgrep -u oac-node -a');
  assert.notEqual(left.status, 0, `no process of oac-node is left: ${left.stdout}`);
  const part = await host.shOk(
    `stat -c %s /var/lib/oac-node/.oac/nodes/${installationId}/files/${image.name}.part`,
  );
  assert.ok(Number(part) > 0 && Number(part) < image.size, `a part of ${part} bytes is kept`);

  await core.coreApi('DELETE', '/__fixture/faults');
  const rerun = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
  assert.equal(rerun.status, 0, `${rerun.stdout}\n${rerun.stderr}`);
  record('the same line again, its output on a pipe', rerun.stdout.trimEnd());
  assert.match(
    rerun.stdout,
    new RegExp(`^ {2}Resuming ${image.name.replace(/[.]/g, '\\.')} at `, 'm'),
  );
  assert.match(rerun.stdout, /is connected and ready/);
});
