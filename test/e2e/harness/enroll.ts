// The line (issue #28 item 5): the enrollment token Core issues with its one-line install command,
// what that line names (the installation ID, the installer it keeps, the uninstall command), and
// the line pasted into the host's sh (on stdin, as a terminal paste: never in argv).
import assert from 'node:assert/strict';
import type { CoreInHost } from '../helpers/core-in-host.ts';
import type { E2eHost } from './host.ts';

export interface Line {
  installationId: string;
  /** The line's `s`: the SHA-256 of the executable, which names the kept installer (BOOT-03). */
  sha: string;
  /** `<bootstrap installer> uninstall --installation-id ID`, NODE_OPTIONS cleared. */
  uninstall: string[];
}

export interface Issued extends Line {
  token: string;
  /** The one-line install command, as Core returns it with the token. */
  command: string;
}

/** A fresh enrollment token from Core (POST …/enrollment-tokens) and its line. */
export async function issueToken(core: CoreInHost): Promise<Issued> {
  const r = await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {});
  const { token, command } = (r.body ?? {}) as { token?: unknown; command?: unknown };
  if (typeof token !== 'string' || typeof command !== 'string')
    throw new Error(`Core issued no token and line: ${r.status} ${JSON.stringify(r.body)}`);
  return { token, command, ...fromLine(command) };
}

/** The installation ID a line names, and the uninstall command for the installer it keeps. */
export function fromLine(command: string): Line {
  const sha = /s="([0-9a-f]{64})"/.exec(command)?.[1] ?? '';
  const installationId = /--installation-id "([^"]+)"/.exec(command)?.[1] ?? '';
  const installer = `/root/.oac/node-bootstrap/${sha}`;
  const uninstall = [
    'env',
    '-u',
    'NODE_OPTIONS',
    installer,
    'uninstall',
    '--installation-id',
    installationId,
  ];
  return { installationId, sha, uninstall };
}

export interface InstalledByLine extends Line {
  command: string;
  output: string;
}

/** Issues a token, pastes the line into the host's sh as root, and asserts that it succeeded. */
export async function installByLine(host: E2eHost, core: CoreInHost): Promise<InstalledByLine> {
  const { command, installationId, sha, uninstall } = await issueToken(core);
  const run = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  return { command, installationId, sha, uninstall, output: `${run.stderr}${run.stdout}` };
}
