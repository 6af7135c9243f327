// OPS-03: a run the operator interrupts (Ctrl-C, SIGTERM, a closed terminal) stops at a step
// boundary with one line saying how to continue; its exit status is the shell's for the signal.
import { EXIT, OacError, signalStatus } from '../errors.ts';
import { oacError } from '../messages.ts';

export function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw interruptedError(signal);
}

/** The run stopped because of `signal`, whose reason is the signal's name. */
export function interruptedError(signal: AbortSignal): OacError {
  const name = typeof signal.reason === 'string' ? signal.reason : 'a signal';
  return oacError(
    'interrupted',
    { signal: name },
    { exitCode: /^SIG[A-Z]+$/.test(name) ? signalStatus(name as NodeJS.Signals) : EXIT.failure },
  );
}
