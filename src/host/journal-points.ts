// The crash matrix's hooks (issues #5 and #28: test/host/crash-root.test.ts,
// test/e2e/helpers/crash-host.ts). Every journal write is a point, numbered (the N-th write of this
// process, 1-based) and named by what it writes: `intend:<key>`, `record:<key>`, `forget:<key>`
// (a resource key such as `account:oac-node`, never a value; a write of several resources names
// each, `intend:state+network`), `registered-node`, `inputs` or
// `digests`.
// - OAC_NODE_TEST_KILL_AT=before:N|after:N, or before:<label>|after:<label> (the first write with
//   that label), makes this process SIGKILL itself just before or just after that write.
// - OAC_NODE_TEST_JOURNAL_TRACE_FD=<n> writes `<N> <label>` to the inherited descriptor n for
//   each write, just before it. A descriptor, never a path: a path in root's environment would
//   let whoever sets it make root overwrite any file; a descriptor is one the caller opened
//   with its own rights.
// Unset, they do nothing. They read no secret and write none (a label names a resource, never
// its content); they change nothing but the moment the process dies, and the caller's trace.
import { writeSync } from 'node:fs';

const killAt = /^(before|after):(.+)$/.exec(process.env.OAC_NODE_TEST_KILL_AT ?? '');
const traceFd = /^([3-9]|[1-9]\d+)$/.exec(process.env.OAC_NODE_TEST_JOURNAL_TRACE_FD ?? '');
const trace = traceFd === null ? undefined : Number(traceFd[1]);
let writes = 0;
const seen = new Set<string>();

/** Called just before a journal write labelled `label`; returns what to call just after it. */
export function journalPoint(label: string): () => void {
  if (killAt === null && trace === undefined) return () => undefined;
  writes += 1;
  const n = writes;
  const first = !seen.has(label);
  seen.add(label);
  if (trace !== undefined) writeSync(trace, `${n} ${label}\n`);
  const hit = (when: 'before' | 'after'): boolean =>
    killAt?.[1] === when &&
    (/^[1-9]\d*$/.test(killAt[2] ?? '') ? Number(killAt[2]) === n : first && killAt[2] === label);
  if (hit('before')) process.kill(process.pid, 'SIGKILL');
  return () => {
    if (hit('after')) process.kill(process.pid, 'SIGKILL');
  };
}
