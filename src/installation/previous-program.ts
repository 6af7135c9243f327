// UPG-02, issue #38: the program an upgrade replaces is kept, as a step of the plan (before the
// program's), until the new one is ready: a hard link beside it, recorded in the journal (as
// the file it is) with its SHA-256 and version and the service's record from before, so that a
// run killed anywhere later can roll back to it (./upgrade-rollback.ts drops it once the new
// program is ready, or puts it back). The plan keeps nothing when it does not replace the
// program, when there is none yet, when the file on the host is not the one the journal records
// (a repair is no upgrade, and an unknown file is nothing to go back to), or when a kept program
// of an earlier attempt is still there (that one is the proven one). The record comes first,
// then the link: a run killed between them leaves a record of a file that is not there, which
// no later run takes as a source.
import { z } from 'zod';
import { JOURNAL_RESOURCE } from '../../records/journal.ts';
import { KEYS } from '../resources/keys.ts';
import type { Driver } from '../resources/driver.ts';
import { fileSha256 } from '../resources/drivers/file-digest.ts';
import { defineKind } from '../resources/kind.ts';
import { PREVIOUS_PROGRAM_RESOURCE } from '../resources/resources.ts';
import type { RootContext } from './root-context.ts';

export const PREVIOUS_PROGRAM_ACTUAL = z.strictObject({
  /** The installed program's SHA-256; undefined: none there, or no regular file. */
  onHost: z.string().optional(),
  /** The journal's records of the installed program and of the service, as they were before
   *  this run wrote anything (a later step of it may mark a restart owed): what is kept. */
  recorded: z
    .strictObject({ program: JOURNAL_RESOURCE, service: JOURNAL_RESOURCE.optional() })
    .optional(),
  /** A program an earlier attempt kept is recorded and still there. */
  pending: z.boolean(),
});
export type PreviousProgramActual = z.infer<typeof PREVIOUS_PROGRAM_ACTUAL>;

export const previousProgramDriver: Driver<'previous-program', PreviousProgramActual, RootContext> =
  {
    async probe(r, ctx) {
      const program = ctx.journal.get(KEYS.program);
      const kept =
        ctx.journal.get(r.key) !== undefined && (await ctx.host.lstat(r.path)) !== undefined;
      // Only a regular file is a program to go back to (a link is no copy of one).
      const found = await ctx.host.lstat(r.program);
      const onHost =
        found?.isFile() === true ? await fileSha256(ctx, ctx.host.path(r.program)) : undefined;
      const service = ctx.journal.get(KEYS.service);
      return {
        onHost,
        recorded: program === undefined ? undefined : { program, service },
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
      const sha256 = a.recorded?.program.props.sha256;
      const replaced = typeof sha256 === 'string' && a.onHost === sha256;
      if (!replaced || sha256 === r.sha256)
        return { kind: 'skip', detail: `no program to keep (${r.path})` };
      const recorded = a.recorded?.program.props.version;
      const version = typeof recorded === 'string' ? ` ${recorded}` : '';
      return {
        kind: 'create',
        detail: `keep oac-node${version} as ${r.path} until the new program is ready`,
      };
    },
    async apply(r, _action, { recorded }, { host, journal }) {
      if (recorded === undefined) throw new Error('the plan keeps a recorded program only');
      // A roll back resumed by a later run restores the service's record from here: as it was
      // when the run planned, before a step of it marked a restart owed.
      const serviceInputs = recorded.service?.props.inputs;
      await journal.record(r.key, {
        kind: 'file',
        name: r.path,
        ownership: 'owned',
        props: {
          ...recorded.program.props,
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
  actual: PREVIOUS_PROGRAM_ACTUAL,
  name: (r) => r.path,
});
