// `oac-node show-plan FILE [--json]` (DECL-05): a saved plan printed as the dry run that made it
// printed it (the same renderer, the same events; --json: the same NDJSON). Reads the file only.
import type { Argv, CommandModule } from 'yargs';
import { readPlanFile } from '../../installation/plan-file.ts';
import type { EngineEvent } from '../../core/events.ts';
import { EXIT, ExitStatus } from '../../errors.ts';
import { parseInstallationId } from '../../layout.ts';
import { printable } from '../../ui/printable.ts';
import { jsonRenderer, plainRenderer } from '../../ui/render-events.ts';
import { startEvent } from '../json-contract.ts';
import { COMMAND_SUMMARIES } from '../summaries.ts';
import { jsonOption } from '../options.ts';
import { summaryOf } from '../install-output.ts';

interface ShowPlanArgs {
  file?: string;
  json: boolean;
}

export const showPlanCommand: CommandModule<object, ShowPlanArgs> = {
  command: 'show-plan <file>',
  describe: COMMAND_SUMMARIES['show-plan'],
  builder: (yargs: Argv) =>
    yargs
      .positional('file', { type: 'string', describe: 'The plan file install --plan-out wrote' })
      .option('json', jsonOption),
  handler: async (argv) => {
    const plan = await readPlanFile(argv.file ?? '');
    const write = (text: string) => process.stdout.write(text);
    const id = parseInstallationId(plan.options.installation_id);
    const summary =
      plan.command === 'uninstall'
        ? { type: 'summary', changed: plan.changed, kept: plan.kept }
        : summaryOf(id, {
            report: { changed: plan.changed },
            ...(plan.provider === undefined ? {} : { provider: plan.provider }),
          });
    if (argv.json) {
      const json = jsonRenderer(write);
      for (const event of [startEvent(plan.command, true), ...plan.events, summary]) json(event);
    } else {
      const plain = plainRenderer(write, true);
      for (const event of plan.events) plain(event as EngineEvent);
      write(plan.changed ? 'Changes would be made.\n' : 'Nothing would change.\n');
      // As the uninstall's dry run lists them (SEC-09: escaped, a line may name the image).
      if (plan.command === 'uninstall')
        for (const line of plan.kept) write(`${printable(`Kept: ${line}`)}\n`);
    }
    if (plan.changed) throw new ExitStatus(EXIT.changesPending);
  },
};
