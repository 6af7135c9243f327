import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Argv, CommandModule } from 'yargs';
import { runNode } from '../../agent/run.ts';
import { ExitStatus } from '../../errors.ts';
import { logLine } from '../../ui/log.ts';

interface RunArgs {
  config: string;
  'state-dir': string;
  'heartbeat-seconds': number | undefined;
}

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run',
  describe: COMMAND_SUMMARIES.run,
  builder: (yargs: Argv) =>
    yargs
      .option('config', {
        type: 'string',
        demandOption: true,
        describe: 'The provider file (JSON)',
      })
      .option('state-dir', {
        type: 'string',
        demandOption: true,
        describe: "The node's state directory",
      })
      // Hidden: tests shorten the ~10 s heartbeat so that a fix shows within a second.
      .option('heartbeat-seconds', { type: 'number', hidden: true }) as unknown as Argv<RunArgs>,
  handler: async (argv) => {
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    try {
      const status = await runNode({
        configPath: argv.config,
        stateDir: argv['state-dir'],
        heartbeatSeconds: argv['heartbeat-seconds'],
        log: logLine,
        signal: stop.signal,
      });
      if (status !== 0) throw new ExitStatus(status);
    } finally {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
  },
};
