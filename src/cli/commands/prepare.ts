// Hidden: `oac-node _prepare`, started by the installer as oac-node in its own session
// (HOST-08). Reads one JSON request on stdin (it carries the token: never argv, never env) and
// prints engine events as NDJSON on stdout.
import type { CommandModule } from 'yargs';
import { prepare } from '../../agent/prepare.ts';
import { prepareRequest } from '../../agent/prepare-request.ts';
import { ExitStatus, OacError } from '../../errors.ts';
import type { EngineEvent } from '../../engine/events.ts';
import { limitDownloadMemory } from '../../net/download-memory.ts';
import { redactor } from '../../ui/redact.ts';
import { readStdin } from '../stdin.ts';

export const prepareCommand: CommandModule = {
  command: '_prepare',
  describe: false,
  handler: async () => {
    // The downloads happen here: keep their peak memory low (bench/download.ts, DL-02).
    limitDownloadMemory();
    const print = (event: EngineEvent) =>
      process.stdout.write(`${redactor.redact(JSON.stringify(event))}\n`);
    const parsed = prepareRequest.safeParse(JSON.parse((await readStdin(1024 * 1024)) || 'null'));
    if (!parsed.success)
      throw new OacError('prepare_request_invalid', 'The installer sent an invalid request');
    if (parsed.data.token !== null) redactor.add(parsed.data.token);
    try {
      await prepare(parsed.data, print, parsed.data.dry_run);
    } catch (error) {
      // The failing step already printed step-failed; the installer renders it.
      if (error instanceof OacError) throw new ExitStatus(error.exitCode);
      throw error;
    }
  },
};
