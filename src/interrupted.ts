// OPS-03: a run the operator interrupts (Ctrl-C, SIGTERM, a closed terminal) stops at a step
// boundary with one line saying how to continue; its exit status is the shell's for the signal.
// The command that hears the signal aborts its run with this error as the abort's reason, and
// whatever stops on that signal (the reconcile core between two steps, a download) throws the
// reason itself: the core renders no message of its own (docs/architecture.md "Errors").
import { EXIT, type OacError, signalStatus } from './errors.ts';
import { oacError } from './messages.ts';

/** The run stopped because of the signal `name` (SIGINT, SIGTERM, SIGHUP, SIGPIPE). */
export function interruptedError(name: string): OacError {
  return oacError(
    'interrupted',
    { signal: name },
    { exitCode: /^SIG[A-Z]+$/.test(name) ? signalStatus(name as NodeJS.Signals) : EXIT.failure },
  );
}
