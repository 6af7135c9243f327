// The crash matrix's points and the process it kills (issue #28 item 2): root's half of an
// install or the uninstall run in a child process with the journal's test hooks
// (src/host/journal-points.ts), and `rootHalfPoints()`, the journal writes of root's half by
// label. Both tiers of the matrix take root's half's points from here: the host tier kills each
// (test/host/crash-root.test.ts), the e2e tier kills the rest of a real install's
// (test/e2e/helpers/crash-host.ts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { programFor } from './root-half.ts';
import { makeScratchRoot } from './scratch-root.ts';

/** The child (test/helpers/crash-root-child.ts) bundled by esbuild, as scripts/build.ts bundles
 *  the executable: it starts in a fraction of `node --import tsx`'s time (0.3 s against 1.5 s
 *  or more), and the crash matrix starts one per point. Made once per test process. */
let bundled: Promise<string> | undefined;

function childEntry(): Promise<string> {
  bundled ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oac-crash-child-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    await build({
      entryPoints: [join(import.meta.dirname, 'crash-root-child.ts')],
      outfile: join(dir, 'crash-root-child.mjs'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      // CommonJS dependencies (undici) call require.
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
      logLevel: 'warning',
    });
    return join(dir, 'crash-root-child.mjs');
  })();
  return bundled;
}

/** `install` or `uninstall` of root's half in a child process with `env` (the crash matrix's
 *  OAC_NODE_TEST_* hooks): 'killed' when it died of SIGKILL, 'done' when it completed. */
export async function rootHalfChild(
  command: 'install' | 'uninstall',
  root: string,
  program: string,
  env: Record<string, string>,
  /** A file the journal trace goes to (as descriptor 3). */
  trace?: string,
): Promise<'killed' | 'done'> {
  const entry = await childEntry();
  const traceFd = trace === undefined ? 'ignore' : openSync(trace, 'a', 0o600);
  const child = spawn(process.execPath, [entry, command, root, program], {
    env: {
      ...process.env,
      ...env,
      ...(trace === undefined ? {} : { OAC_NODE_TEST_JOURNAL_TRACE_FD: '3' }),
    },
    stdio: ['ignore', 'pipe', 'pipe', traceFd],
  });
  if (typeof traceFd === 'number') closeSync(traceFd);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [status, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  if (signal === 'SIGKILL') return 'killed';
  if (status === 0) return 'done';
  throw new Error(`${command} on ${root}: status ${status} ${signal}\n${output}`);
}

/** The labels of the trace (`<n> <label>` lines), in order. */
export function traceLabels(text: string): string[] {
  const lines = text.split('\n').filter((line) => line !== '');
  return lines.map((line, i) => {
    const [n, label, extra] = line.split(' ');
    if (n !== String(i + 1) || label === undefined || extra !== undefined)
      throw new Error(`not a journal trace line ${i + 1}: ${line}`);
    return label;
  });
}

/** Every journal write of root's half, by label, as a clean install and a clean uninstall on a
 *  fresh scratch tree make them: the points the host tier kills. */
export async function rootHalfPoints(): Promise<{ install: string[]; uninstall: string[] }> {
  const root = makeScratchRoot();
  const program = programFor(root);
  const trace = `${root}.trace`;
  try {
    const run = async (command: 'install' | 'uninstall') => {
      rmSync(trace, { force: true });
      const outcome = await rootHalfChild(command, root, program, {}, trace);
      if (outcome !== 'done') throw new Error(`the traced ${command} was killed`);
      return traceLabels(readFileSync(trace, 'utf8'));
    };
    const install = await run('install');
    return { install, uninstall: await run('uninstall') };
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(program, { force: true });
    rmSync(trace, { force: true });
  }
}
