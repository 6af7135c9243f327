// Issues a token, pastes the line Core returns into the host's sh (on stdin, as a terminal
// paste: never in argv), and returns what later steps need: the installation ID and the
// uninstall command built from the installer the line left in root's bootstrap directory.
import assert from 'node:assert/strict';
import type { E2eHost } from '../harness/host.ts';
import type { CoreInHost } from './core-in-host.ts';

export interface InstalledByLine {
  command: string;
  installationId: string;
  /** `<bootstrap installer> uninstall --installation-id ID`, NODE_OPTIONS cleared. */
  uninstall: string[];
  output: string;
}

export async function installByLine(host: E2eHost, core: CoreInHost): Promise<InstalledByLine> {
  const { command } = (await core.coreApi('POST', '/core/v1/sandbox/enrollment-tokens', {}))
    .body as { command: string };
  const run = await host.exec(['sh'], { stdin: `${command}\n`, timeoutMs: 600_000 });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  return { command, ...fromLine(command), output: `${run.stderr}${run.stdout}` };
}

/** The installation ID a line names, and the uninstall command for the installer it keeps. */
export function fromLine(command: string): {
  installationId: string;
  sha: string;
  uninstall: string[];
} {
  // The line's `s`: the SHA-256 of the executable, which names the kept installer (BOOT-03).
  const sha = /s='([0-9a-f]{64})'/.exec(command)?.[1] ?? '';
  const installationId = /--installation-id '([^']+)'/.exec(command)?.[1] ?? '';
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
