// REL-01 (issue #26 item 1): what every fault test of the e2e host asserts, and how it drives the
// kept installer. A fault ends the run in one line naming the cause and a hint (never a stack);
// the journal is whole (absent, or a complete JSON record: the old version or the new one); the
// run after the cause is cleared converges; once Core removed the node, uninstall returns the
// host to its snapshot from before the install (beyond the kept Runtime image).
import assert from 'node:assert/strict';
import { layout, parseInstallationId } from '../../../src/layout.ts';
import type { CoreInHost } from '../helpers/core-in-host.ts';
import { listNodes, removeNodeInCore, untilNodeStopped } from './core-nodes.ts';
import { issueToken, type Issued } from './enroll.ts';
import { changedSteps, jsonEvents } from './events.ts';
import type { E2eHost, ExecResult } from './host.ts';
import { beyondKeptImage, diffSnapshots, type HostSnapshot } from './snapshot.ts';

export interface FaultRun {
  readonly issued: Issued;
  readonly journalPath: string;
  /** The line, pasted into the host's sh (downloads and keeps the installer, then installs). */
  line(env?: string[]): Promise<ExecResult>;
  /** The kept installer's install, the line's token on stdin, `env` (VAR=value) before it. */
  install(env?: string[], extra?: string[]): Promise<ExecResult>;
  /** The journal's text, or null when there is none. */
  journal(): Promise<string | null>;
}

/** A fresh token and line for `host`; the runs that follow use them. */
export async function faultRun(host: E2eHost, core: CoreInHost): Promise<FaultRun> {
  const issued = await issueToken(core);
  const journalPath = layout(parseInstallationId(issued.installationId)).journal;
  const installer = issued.uninstall[3] as string; // env -u NODE_OPTIONS <installer> uninstall …
  return {
    issued,
    journalPath,
    line: (env = []) =>
      host.exec(['env', ...env, 'sh'], { stdin: `${issued.command}\n`, timeoutMs: 300_000 }),
    install: (env = [], extra = []) =>
      host.exec(
        [
          ...['env', '-u', 'NODE_OPTIONS', ...env, installer, 'install'],
          ...['--core-url', core.coreUrl, '--installation-id', issued.installationId, ...extra],
        ],
        { stdin: `${issued.token}\n`, timeoutMs: 300_000 },
      ),
    async journal() {
      const r = await host.exec(['cat', journalPath]);
      return r.status === 0 ? r.stdout : null;
    },
  };
}

/**
 * The run failed (exit 1) with one error: exactly one hint, after its line, which matches `line`
 * (the line's own progress, `oac-node: downloading the installer`, may come before); the hint
 * matches `hint`; no stack trace anywhere. Returns the line.
 */
export function assertOneLine(run: ExecResult, line: RegExp, hint: RegExp, why: string): string {
  const said = `${why}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
  assert.equal(run.status, 1, `exit 1: ${said}`);
  const lines = run.stderr.split('\n');
  const hints = lines.flatMap((l, i) => (l.startsWith('  hint: ') ? [i] : []));
  assert.equal(hints.length, 1, `one error, one hint: ${said}`);
  const at = hints[0] as number;
  const first = lines[at - 1] ?? '';
  assert.match(first, line, said);
  assert.match(lines[at] as string, hint, said);
  assert.doesNotMatch(`${run.stdout}${run.stderr}`, /^\s+at .+[:(]\d+/m, `no stack: ${said}`);
  return first;
}

/** The journal is whole: absent, or one complete JSON record of this installation. */
export function assertJournalWhole(text: string | null, why: string): void {
  if (text === null) return;
  let record: { installation_id?: unknown } | undefined;
  assert.doesNotThrow(() => (record = JSON.parse(text) as typeof record), `${why}: ${text}`);
  assert.equal(typeof record?.installation_id, 'string', `${why}: a journal record`);
}

/** The run succeeded; its output on failure. */
export function assertOk(run: ExecResult, why: string): void {
  assert.equal(run.status, 0, `${why}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
}

/**
 * The end of every fault test: a rerun changes nothing (every --json step unchanged), status
 * finds nothing wrong, Core lists the node connected and ready; then Core removes it, and
 * uninstall returns the host to `pristine` (beyond the kept Runtime image).
 */
export async function assertConvergedThenUninstall(
  host: E2eHost,
  core: CoreInHost,
  run: FaultRun,
  pristine: HostSnapshot,
): Promise<void> {
  const rerun = await run.install([], ['--json']);
  assertOk(rerun, 'the rerun after the fault converged');
  assert.deepEqual(
    changedSteps(jsonEvents(rerun.stdout)),
    [],
    'a converged host: the next run changes nothing',
  );
  const [installer] = run.issued.uninstall.slice(3);
  const status = await host.exec(['env', '-u', 'NODE_OPTIONS', installer as string, 'status']);
  assertOk(status, 'status after the fault: nothing wrong');
  const [node] = await listNodes(core);
  assert.ok(node?.connected && node.provider_ready, `Core: ${JSON.stringify(node)}`);

  await removeNodeInCore(core, node.node_id);
  await untilNodeStopped(host, run.issued.installationId, { lockReleased: true });
  assertOk(await host.exec(run.issued.uninstall), 'uninstall');
  const differences = diffSnapshots(pristine, await host.snapshot());
  assert.deepEqual(beyondKeptImage(differences), [], differences.join('\n'));
}
