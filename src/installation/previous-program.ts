// UPG-02, issue #38: the program an upgrade replaces is kept, as a step of the plan (before the
// program's), until the new one is ready: a hard link beside it, recorded in the journal (as
// the file it is) with its SHA-256 and version and the service's record from before, so that a
// run killed anywhere later can roll back to it (installer/upgrade.ts drops it once the new
// program is ready, or puts it back). The plan keeps nothing when it does not replace the
// program, when there is none yet, when the file on the host is not the one the journal records
// (a repair is no upgrade, and an unknown file is nothing to go back to), or when a kept program
// of an earlier attempt is still there (that one is the proven one). The record comes first,
// then the link: a run killed between them leaves a record of a file that is not there, which
// no later run takes as a source.
import { KEYS } from '../resources/keys.ts';
import type { Driver } from '../resources/driver.ts';
import { fileSha256 } from '../resources/drivers/file-digest.ts';
import { defineKind } from '../resources/kind.ts';
import { PREVIOUS_PROGRAM_RESOURCE } from '../resources/resources.ts';
import type { RootContext } from './root-context.ts';

export interface PreviousProgramActual {
  /** The installed program's SHA-256; undefined: none there. */
  onHost: string | undefined;
  /** What the journal records of the installed program: its SHA-256 and version. */
  recorded: { sha256: string; version: string | undefined } | undefined;
  /** A program an earlier attempt kept is recorded and still there. */
  pending: boolean;
}

export const previousProgramDriver: Driver<'previous-program', PreviousProgramActual, RootContext> =
  {
    async probe(r, ctx) {
      const program = ctx.journal.get(KEYS.program)?.props;
      const kept =
        ctx.journal.get(r.key) !== undefined && (await ctx.host.lstat(r.path)) !== undefined;
      const sha256 = program?.sha256;
      const version = program?.version;
      return {
        onHost: await fileSha256(ctx, ctx.host.path(r.program)),
        recorded:
          typeof sha256 === 'string'
            ? { sha256, version: typeof version === 'string' ? version : undefined }
            : undefined,
        pending: kept,
      };
    },
    exists: (a) => a.pending,
    diff(r, a) {
      if (a.pending)
        return {
          kind: 'keep',
          detail: `${r.path}, kept by an earlier upgrade that did not finish`,
        };
      const replaced = a.recorded !== undefined && a.onHost === a.recorded.sha256;
      if (!replaced || a.recorded?.sha256 === r.sha256)
        return { kind: 'skip', detail: `no program to keep (${r.path})` };
      const version = a.recorded?.version === undefined ? '' : ` ${a.recorded.version}`;
      return {
        kind: 'create',
        detail: `keep oac-node${version} as ${r.path} until the new program is ready`,
      };
    },
    async apply(r, _action, _actual, { host, journal }) {
      const program = journal.get(KEYS.program);
      if (program === undefined) throw new Error('the plan keeps a recorded program only');
      // A roll back resumed by a later run restores the service's record from here.
      const serviceInputs = journal.get(KEYS.service)?.props.inputs;
      await journal.record(r.key, {
        kind: 'file',
        name: r.path,
        ownership: 'owned',
        props: {
          ...program.props,
          ...(typeof serviceInputs === 'string' ? { service_inputs: serviceInputs } : {}),
        },
      });
      await host.unlinkFile(r.path);
      await host.linkFile(r.program, r.path);
      return { outcome: 'created', detail: `${r.path} (until the new program is ready)` };
    },
    // The journal records it as the file it is: uninstall and status take it from there
    // (src/installation/recorded.ts); the install itself never removes it by plan.
    remove: () => Promise.resolve({ outcome: 'skipped', detail: 'the kept program' }),
  };

export const previousProgramKind = defineKind({
  kind: 'previous-program',
  desired: PREVIOUS_PROGRAM_RESOURCE,
  recorded: false,
  driver: previousProgramDriver,
  name: (r) => r.path,
});
