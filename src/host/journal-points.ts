// The crash matrix's hooks (issues #5 and #28: test/host/crash-root.test.ts,
// test/e2e/helpers/crash-host.ts). Every journal write is a point, numbered (the N-th write of this
// process, 1-based) and named by what it writes: `intend:<key>`, `record:<key>`, `forget:<key>`
// (a resource key such as `account:oac-node`, never a value; a write of several resources names
// each, `intend:state+network`), `registered-node`, `inputs` or
// `digests`.
// - OAC_NODE_TEST_KILL_AT=before:N|after:N, or before:<label>|after:<label> (the first write with
//   that label), makes this process SIGKILL itself just before or just after that write.
// - OAC_NODE_TEST_JOURNAL_TRACE_FD=3 writes `<N> <label>` to descriptor 3 for each write, just
//   before it. A descriptor, never a path: a path in root's environment would let whoever sets
//   it make root overwrite any file; a descriptor is one the caller opened with its own rights.
//   Only 3, and only a file or a pipe open for writing: a descriptor the caller did not pass is
//   one of this process's own (Node opens its event loop's as 3 when nothing was inherited
//   there), and writing a trace into it is refused before the command does anything.
// They exist only in test builds (issue #37): `npm run build` defines OAC_BUILT_TEST_HOOKS as
// false, esbuild folds every test of it and drops the code and these names with it
// (test/host/executable.test.ts checks the release executable holds none of them);
// `npm run build -- --test-hooks` and the sources under tsx keep them. They read no secret and
// write none (a label names a resource, never its content).
import { fstatSync, readFileSync, writeSync } from 'node:fs';
import { UsageError } from '../errors.ts';

declare global {
  /** Defined by scripts/build.ts: false in the release build, true in a test build. */
  const OAC_BUILT_TEST_HOOKS: boolean | undefined;
}

interface Hooks {
  killAt: RegExpExecArray | null;
  trace: number | undefined;
}

const TRACE_FD = 3;

const hooks: Hooks | undefined =
  typeof OAC_BUILT_TEST_HOOKS !== 'undefined' && !OAC_BUILT_TEST_HOOKS ? undefined : readHooks();

function readHooks(): Hooks | undefined {
  const killAt = /^(before|after):(.+)$/.exec(process.env.OAC_NODE_TEST_KILL_AT ?? '');
  const trace = process.env.OAC_NODE_TEST_JOURNAL_TRACE_FD;
  if (killAt === null && trace === undefined) return undefined;
  return { killAt, trace: trace === undefined ? undefined : TRACE_FD };
}

/** Descriptor 3 is a file or a pipe: the caller's (this process's own 3 is its event loop's). */
function traceInherited(): boolean {
  try {
    const found = fstatSync(TRACE_FD);
    return found.isFile() || found.isFIFO();
  } catch {
    return false;
  }
}

/** Why the trace descriptor the environment names cannot be written to, if it cannot. */
function traceProblem(): string | undefined {
  const value = process.env.OAC_NODE_TEST_JOURNAL_TRACE_FD;
  if (value === undefined) return undefined;
  if (value !== String(TRACE_FD)) return `takes only ${TRACE_FD}, not ${JSON.stringify(value)}`;
  if (!traceInherited()) return 'names no file or pipe this command inherited';
  let flags: string | undefined;
  try {
    const info = readFileSync(`/proc/self/fdinfo/${TRACE_FD}`, 'utf8');
    flags = /^flags:\s+([0-7]+)$/m.exec(info)?.[1];
  } catch {
    return 'names no file or pipe this command inherited';
  }
  // O_ACCMODE of the (octal) open flags: 1 write only, 2 read and write.
  const access = flags === undefined ? 0 : Number.parseInt(flags, 8) & 3;
  return access === 1 || access === 2 ? undefined : 'names a descriptor not open for writing';
}

/** Refuses, in one line and before anything happens, a trace descriptor that was not handed
 *  over (issue #37: after the clean-environment restart, which passes only 0-2, the number
 *  named one of root's own files). Nothing in a release build. */
export function checkTestHooks(): void {
  if (typeof OAC_BUILT_TEST_HOOKS !== 'undefined' && !OAC_BUILT_TEST_HOOKS) return;
  const problem = traceProblem();
  if (problem !== undefined)
    throw new UsageError(
      `OAC_NODE_TEST_JOURNAL_TRACE_FD ${problem}: open descriptor 3 for writing`,
    );
}

/** The descriptors the clean-environment restart hands on besides 0-2 (src/host/clean-env.ts):
 *  the trace's, when this process may write it. None in a release build. */
export function traceDescriptors(): number[] {
  if (typeof OAC_BUILT_TEST_HOOKS !== 'undefined' && !OAC_BUILT_TEST_HOOKS) return [];
  const wanted = process.env.OAC_NODE_TEST_JOURNAL_TRACE_FD !== undefined;
  return wanted && traceInherited() ? [TRACE_FD] : [];
}

let writes = 0;
const seen = new Set<string>();

/** Called just before a journal write labelled `label`; returns what to call just after it. */
export function journalPoint(label: string): () => void {
  // The constant itself, tested here: esbuild drops the rest of the body from a release build.
  if (typeof OAC_BUILT_TEST_HOOKS !== 'undefined' && !OAC_BUILT_TEST_HOOKS) return () => undefined;
  if (hooks === undefined) return () => undefined;
  const { killAt, trace } = hooks;
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
