// OPS-03 / RERUN-04: Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop the run at a step
// boundary rather than in the middle of one: the first signal aborts the run's signal (the
// engine stops before its next resource, the node half's process group is told to stop and its
// download keeps its part file), and the command ends with the guide's "run the command again".
// A second Ctrl-C stops at once, for an operator who will not wait; a repeated
// SIGTERM or SIGHUP changes nothing (a service manager or a closed terminal may send one to
// each process of the run, and the first process of a restarted executable passes its own on).

import { runForcedExitHooks } from '../host/exit-hooks.ts';
import { signalStatus } from '../errors.ts';
import { interruptedError } from '../interrupted.ts';
import { killChildGroups } from '../host/child-lines.ts';

const STOPPING = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const STOPPING_LINE = 'oac-node: stopping after the current step\n';
const CTRL_C_LINE = 'oac-node: stopping after the current step (Ctrl-C again stops at once)\n';

export interface Interruption {
  signal: AbortSignal;
  /** Takes the handlers away again (the command is over). */
  release: () => void;
}

export function interruptOnSignals(): Interruption {
  const controller = new AbortController();
  const handler = (signal: NodeJS.Signals) => {
    // Ctrl-C again: stop now. Our listener stays registered meanwhile: signal-exit (under
    // listr2's cursor handling) re-raises a signal it believes no one else handles, which
    // would kill this process before the run could stop between two steps.
    if (controller.signal.aborted) {
      if (signal !== 'SIGINT') return;
      // The node half runs in its own session: it hears no terminal, so it goes first.
      killChildGroups();
      runForcedExitHooks();
      process.exit(signalStatus(signal));
    }
    if (signal === 'SIGINT') process.stderr.write(CTRL_C_LINE);
    else if (signal === 'SIGTERM') process.stderr.write(STOPPING_LINE);
    controller.abort(interruptedError(signal));
  };
  const release = () => {
    for (const name of STOPPING) process.removeListener(name, handler);
    outputLost = undefined;
  };
  for (const name of STOPPING) process.on(name, handler);
  // A closed terminal can fail a write before its SIGHUP is handled (a render due in the same
  // turn of the event loop): without a listener that write's EIO would kill this process, and
  // the node half, its events' reader gone, would die of the broken pipe with its download's
  // last bytes unwritten (CI, issue #28). A lost terminal or pipe is a hangup: stop the same way.
  outputLost = () => handler('SIGHUP');
  ignoreOutputErrors();
  return { signal: controller.signal, release };
}

/** What a failed write to stdout or stderr does: the current run stops as for SIGHUP. */
let outputLost: (() => void) | undefined;
let listening = false;

/** Output errors never kill the process: once the terminal or pipe is gone, writes go nowhere. */
function ignoreOutputErrors(): void {
  if (listening) return;
  listening = true;
  const lost = () => outputLost?.();
  process.stdout.on('error', lost);
  process.stderr.on('error', lost);
}
