// RERUN-01 on a host the line installed, as the distribution matrix and the soak check it: the
// line pasted again succeeds; the kept installer's `--json` rerun changes nothing and leaves the
// host as it was; `status --json` finds no problem.
import assert from 'node:assert/strict';
import type { CoreInHost } from '../helpers/core-in-host.ts';
import type { Line } from './enroll.ts';
import { changedSteps, jsonEvents } from './events.ts';
import type { E2eHost } from './host.ts';
import { diffSnapshots, type HostSnapshot } from './snapshot.ts';

/** `installed`: the host's snapshot once the line had installed it (taken before the line again). */
export async function assertRerunsUnchanged(
  host: E2eHost,
  core: CoreInHost,
  line: Line & { command: string },
  installed: HostSnapshot,
): Promise<void> {
  const again = await host.exec(['sh'], { stdin: `${line.command}\n`, timeoutMs: 300_000 });
  assert.equal(again.status, 0, `the line again: ${again.stdout}\n${again.stderr}`);
  const program = line.uninstall.slice(0, line.uninstall.indexOf('uninstall'));
  const args = ['install', '--core-url', core.coreUrl, '--installation-id', line.installationId];
  const json = await host.exec([...program, ...args, '--json'], { stdin: '' });
  assert.equal(json.status, 0, json.stderr);
  const events = jsonEvents(json.stdout);
  assert.deepEqual(changedSteps(events), [], 'RERUN-01 a rerun changes nothing');
  assert.equal(events.at(-1)?.changed, false, 'the summary says nothing changed');
  assert.deepEqual(diffSnapshots(installed, await host.snapshot()), [], 'the host is as installed');

  const status = await host.exec([...program, 'status', '--json']);
  assert.equal(status.status, 0, `no drift: ${status.stdout}\n${status.stderr}`);
  assert.deepEqual((JSON.parse(status.stdout) as { problems: string[] }).problems, []);
}
