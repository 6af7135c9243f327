// Runs the real executable's `_prepare` the way the installer does (setpriv to UID 65532 with the
// provider group, a new session, the request on stdin) and collects its NDJSON events.
import { spawn } from 'node:child_process';

export const NODE_UID = 65532;

export interface Prepared {
  status: number | null;
  events: Array<{
    type: string;
    step?: string;
    code?: string;
    message?: string;
    result?: { outcome: string };
  }>;
  stderr: string;
}

export function runPrepare(exe: string, groupGid: number, request: object): Promise<Prepared> {
  const ids = ['--reuid', String(NODE_UID), '--regid', String(NODE_UID)];
  const child = spawn('setpriv', [...ids, '--groups', String(groupGid), '--', exe, '_prepare'], {
    env: {},
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(`${JSON.stringify(request)}\n`);
  return new Promise((resolve) =>
    child.once('close', (status) =>
      resolve({
        status,
        stderr,
        events: stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Prepared['events'][number]),
      }),
    ),
  );
}

/** Each step's outcome, by step ID. */
export const outcomes = (p: Prepared): Record<string, string | undefined> =>
  Object.fromEntries(
    p.events.filter((e) => e.type === 'step-done').map((e) => [e.step, e.result?.outcome]),
  );
