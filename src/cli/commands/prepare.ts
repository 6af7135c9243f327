// Hidden: `oac-node _prepare`, started by the installer as oac-node in its own session
// (HOST-08). Reads one JSON request on stdin (it carries the token: never argv, never env) and
// prints engine events as NDJSON on stdout.
import { COMMAND_SUMMARIES } from '../summaries.ts';
import type { CommandModule } from 'yargs';
import { prepare } from '../../installation/prepare.ts';
import { prepareRequest, type PrepareRequest } from '../../node/prepare-request.ts';
import { EXIT, ExitStatus, OacError } from '../../errors.ts';
import { oacError } from '../../messages.ts';
import { interruptedError } from '../../interrupted.ts';
import { printableJson } from '../../ui/printable.ts';
import type { EngineEvent } from '../../core/events.ts';
import { limitDownloadMemory } from '../../net/download-memory.ts';
import { redactor } from '../../redact.ts';
import { readStdin } from '../stdin.ts';
import { pinOrigin } from '../../net/core-pin.ts';

export const prepareCommand: CommandModule = {
  command: '_prepare',
  describe: COMMAND_SUMMARIES._prepare,
  handler: async () => {
    // The downloads happen here: keep their peak memory low (bench/download.ts, DL-02).
    limitDownloadMemory();
    const print = (event: EngineEvent) => process.stdout.write(`${printableJson(event)}\n`);
    const request = parseRequest(
      await readStdin(PREPARE_STDIN_MAX_BYTES, "one request from oac-node's installer"),
    );
    if (request.token !== null) redactor.add(request.token);
    // TRUST-01: before any request, Core's origin trusts the pin alone (or the host's store).
    pinOrigin(request.core_url, request.core_pin);
    // OPS-03: the installer stops this process group with SIGTERM when the operator interrupts;
    // the run stops at its next step boundary (a download keeps its part file).
    const stop = new AbortController();
    // Repeats change nothing (a service manager and root may both signal): the run still ends
    // at a step boundary, never in the middle of an unpack or an image load.
    for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
      process.on(name, () => {
        if (!stop.signal.aborted) stop.abort(interruptedError(name));
      });
    // The installer gone (killed outright, or its terminal's write failed it): no one reads the
    // events any more. Stop at the next step boundary as for a signal, so a download keeps its
    // part (DL-02), rather than die of the broken pipe with the part's last bytes unwritten.
    for (const stream of [process.stdout, process.stderr])
      stream.on('error', () => {
        if (!stop.signal.aborted) stop.abort(interruptedError('SIGPIPE'));
      });
    try {
      await prepare(request, print, { dryRun: request.dry_run, signal: stop.signal });
    } catch (error) {
      // The failing step already printed step-failed; the installer renders it.
      if (error instanceof OacError) throw new ExitStatus(error.exitCode);
      throw error;
    }
  },
};

// The request is a few KiB (the configuration is the largest part).
// A bundle's manifest rides along (up to 1 MiB itself: src/bundle/bundle.ts).
const PREPARE_STDIN_MAX_BYTES = 3 * 1024 * 1024;

/** SEC-04: stdin that is no JSON, or JSON outside the schema, is one line naming where the
 *  request is wrong (field paths only: the request carries the token, never echoed). */
function parseRequest(text: string): PrepareRequest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid('not JSON');
  }
  const parsed = prepareRequest.safeParse(json);
  if (!parsed.success) {
    const path = parsed.error.issues[0]?.path.join('.') ?? '';
    throw invalid(path === '' ? 'not a request object' : `field ${path}`);
  }
  return parsed.data;
}

function invalid(detail: string): OacError {
  return oacError('prepare_request_invalid', { detail }, { exitCode: EXIT.usage });
}
