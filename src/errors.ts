// Every failure the operator can act on is an OacError: a stable code, one line that names what
// to fix, an optional hint, and the exit status. Library code throws these and never prints;
// the CLI is the one place that renders them (the caller that returns an error never also logs
// it: docs/architecture.md "Errors"). Anything else that escapes is an internal error and shows its stack.

import { constants } from 'node:os';

// FLEET-02 (docs/automation.md): the statuses automation relies on, kept stable. 2 is only ever
// "--dry-run found changes"; a bad command line is EX_USAGE (sysexits.h), as the line's own
// statuses are sysexits too.
export const EXIT = {
  ok: 0,
  failure: 1,
  changesPending: 2,
  /** DECL-05: a saved plan no longer matches the host or Core (`apply`): nothing changed. */
  planStale: 3,
  /** `status` or `uninstall` without an ID on a host that records no installation (as
   *  status's STATUS_EXIT.notInstalled). */
  nothingInstalled: 4,
  /** `status`: the host matches its record, but Core or the node half could not be checked. */
  notChecked: 5,
  /** `status`: Core removed the node, or does not have it connected and ready. */
  notReady: 6,
  usage: 64,
  removed: 78,
  /** EX_CONFIG: the node was registered on another host (a copy, issue #40): nothing done. */
  otherHost: 78,
} as const;

/** The pasted line's own statuses (sysexits.h), before the installer runs
 *  (installer/one-liner.ts). Here so that the exit-status table (src/exit-statuses.ts) and the
 *  line name them from one place. */
export const LINE_EXIT = {
  checksumMismatch: 65, // EX_DATAERR
  unsupportedHost: 69, // EX_UNAVAILABLE: not Linux x86-64, or a tool is missing
  cannotWrite: 73, // EX_CANTCREAT: ~/.oac/node-bootstrap cannot be created, or unpacking failed
  downloadFailed: 75, // EX_TEMPFAIL: three tries failed, or another command held the lock too long
  consoleRefused: 76, // EX_PROTOCOL: the console answered a status that retrying cannot fix
  bundleUnreadable: 66, // EX_NOINPUT: the bundle named by the command cannot be read
} as const;

export interface OacErrorOptions {
  hint?: string;
  /** Lines under the message (each problem of a file): rendered one per line, each escaped. */
  details?: string[];
  exitCode?: number;
  cause?: unknown;
}

export class OacError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  readonly details: readonly string[];
  readonly exitCode: number;

  constructor(code: string, message: string, options: OacErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OacError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? [];
    this.exitCode = options.exitCode ?? EXIT.failure;
  }
}

/** Bad command-line input: one line, exit 64 (EX_USAGE), no stack. */
export class UsageError extends OacError {
  constructor(message: string) {
    super('usage', message, { exitCode: EXIT.usage });
    this.name = 'UsageError';
  }
}

export function isOacError(value: unknown): value is OacError {
  return value instanceof OacError;
}

/** Not a failure to render: a command that finished with a status of its own (run's 78). */
export class ExitStatus extends Error {
  constructor(readonly status: number) {
    super(`exit ${status}`);
    this.name = 'ExitStatus';
  }
}

/** The shell's status for a run stopped by `signal`: 128 + its number (130 for Ctrl-C). */
export function signalStatus(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}
