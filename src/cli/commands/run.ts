import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { Argv, CommandModule } from 'yargs';
import { runNode } from '../../agent/run.ts';
import { ExitStatus } from '../../errors.ts';
import { pathArg } from '../options.ts';
import { limitDownloadMemory } from '../../net/download-memory.ts';
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
      .option('heartbeat-seconds', { type: 'number', hidden: true }),
  handler: async (argv) => {
    // A rollout downloads the next generation's files in this process: the same peak memory
    // limit as the installer's _prepare (issue #13: <= 100 MB wherever a download runs).
    limitDownloadMemory();
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    try {
      const status = await runNode({
        configPath: pathArg('--config', argv.config),
        stateDir: pathArg('--state-dir', argv['state-dir']),
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
