// The node program is this very executable (no second download), installed root-owned where
// the node account can run but not replace it: a compromised node cannot swap the program the
// service starts, and root never writes into a directory oac-node controls (SEC-02). The
// installer also starts its oac-node half from here: root's own copy sits in a private
// directory oac-node cannot read.
import { isSea } from 'node:sea';
import type { Step } from '../src/engine/step.ts';
import { copyIfDifferent, sha256File, sha256FileIfExists } from '../src/host/files.ts';
import { type InstallContext } from './context.ts';

export const PROGRAM_DIR = '/usr/local/lib/oac-node';

export function programPath(installationId: string): string {
  return `${PROGRAM_DIR}/${installationId}/oac-node`;
}

export const programStep: Step<InstallContext, 'same' | 'differs' | 'absent'> = {
  id: 'program',
  title: 'Node program',
  async probe(ctx) {
    const have = await sha256FileIfExists(ctx.host.path(programPath(ctx.options.installationId)));
    if (have === undefined) return 'absent';
    return have === (await sha256File(process.execPath)) ? 'same' : 'differs';
  },
  plan(ctx, actual) {
    const path = programPath(ctx.options.installationId);
    if (actual === 'same') return { kind: 'unchanged', detail: path };
    return {
      kind: actual === 'absent' ? 'create' : 'replace',
      detail: `install this executable as ${path}`,
    };
  },
  async apply(ctx, action) {
    const path = programPath(ctx.options.installationId);
    if (!isSea())
      throw new Error('the node program is the single executable: build it with npm run build');
    await ctx.journal.intend('program', 'file', path);
    await ctx.host.ensureDirectory(PROGRAM_DIR, 0o755);
    await ctx.host.ensureDirectory(`${PROGRAM_DIR}/${ctx.options.installationId}`, 0o755);
    await copyIfDifferent(process.execPath, ctx.host.path(path), 0o755);
    // The SHA-256 lets `status` tell a replaced program (drift) from the installed one.
    const sha256 = await sha256File(ctx.host.path(path));
    await ctx.journal.record('program', {
      kind: 'file',
      name: path,
      ownership: 'owned',
      detail: { sha256 },
    });
    ctx.restartNeeded = true;
    return { outcome: action.kind === 'create' ? 'created' : 'replaced', detail: path };
  },
};
