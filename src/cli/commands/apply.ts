// `oac-node apply FILE` (DECL-05): a plan saved by `install … --plan-out FILE` (or `uninstall …
// --plan-out FILE`), applied only if
// planning again, now, gives exactly that plan from exactly the same inputs (the host, the
// record, Core's configuration, the options, this installer); otherwise nothing changes, one
// line names what moved, and the exit status is 3. The token comes on stdin when the plan
// registers a node, as for install; the proxy variables are this process's, as for install
// (they must be the plan's: only their digest was saved).
import type { Argv, CommandModule } from 'yargs';
import { readPlanFile } from '../../installation/plan-file.ts';
import { oacError } from '../../messages.ts';
import { parseInstallationId } from '../../layout.ts';
import { COMMAND_SUMMARIES } from '../summaries.ts';
import { jsonOption, timeoutOption } from '../options.ts';
import { applySavedInstall } from '../saved-install.ts';
import { runUninstallWith } from '../uninstall-output.ts';
import { comment } from '../examples.ts';
import { limitDownloadMemory } from '../../net/download-memory.ts';

interface ApplyArgs {
  file?: string;
  json: boolean;
  timeout: string;
  root?: string;
}

export const applyCommand: CommandModule<object, ApplyArgs> = {
  command: 'apply <file>',
  describe: COMMAND_SUMMARIES.apply,
  builder: (yargs: Argv) =>
    yargs
      .positional('file', { type: 'string', describe: 'The plan file install --plan-out wrote' })
      .option('json', jsonOption)
      .option('timeout', timeoutOption)
      .example(
        comment(
          'Apply a reviewed plan of a registered node (exit 3: the plan is stale, nothing changed)',
        ),
        '',
      )
      .example('sudo $0 apply /root/node.plan < /dev/null', ''),
  handler: async (argv) => {
    // PRE-01: root before the token is read or anything changes.
    if (process.getuid?.() !== 0) throw oacError('not_root');
    limitDownloadMemory(); // Issue #41: as install (src/net/download-memory.ts says why)
    const saved = await readPlanFile(argv.file ?? '');
    if (saved.command === 'uninstall') {
      const id = parseInstallationId(saved.options.installation_id);
      const request = { root: argv.root ?? '/', installationId: id, force: saved.options.force };
      return runUninstallWith({ ...request, dryRun: false, savedPlan: saved }, { json: argv.json });
    }
    await applySavedInstall(saved, { json: argv.json, timeout: argv.timeout, root: argv.root });
  },
};
