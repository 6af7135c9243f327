// PRE-09 (issue #38): every preflight check runs, and every problem found is reported in one run
// (a host with three problems needs one run to learn them, not three), before anything on the
// host changes. A check that cannot be made without what another found missing (Docker's figures
// without Docker, checks against a configuration of another installation) is skipped, never
// guessed. Only failures of the run's own kind (exit 1) are findings: an interruption or a
// usage error stops the run as itself.
import { EXIT, isOacError, type OacError } from '../src/errors.ts';
import { refusalError } from '../src/resources/refusal-error.ts';
import { oacError, type MessageCode } from '../src/messages.ts';
import type { Refusal } from '../src/core/step.ts';

export class Findings {
  private readonly found: OacError[] = [];

  /** Runs `check`; an OacError it throws is one more finding. True when it found nothing. */
  async check(check: () => unknown): Promise<boolean> {
    try {
      await check();
      return true;
    } catch (error) {
      if (!isOacError(error) || error.exitCode !== EXIT.failure) throw error;
      this.add(error);
      return false;
    }
  }

  /** One more finding, from the message table. */
  fail(code: MessageCode, values: Record<string, string | number> = {}): void {
    this.add(oacError(code, values));
  }

  /** Every finding as a diagnostic of the plan (src/core/step.ts `Refusal`), in order. */
  refusals(): Refusal[] {
    return this.found.map((e) => ({ code: e.code, message: lineOf(e), ...hintOf(e) }));
  }

  /** Stops the run with every finding: one as itself (its code, line, hint and status), several
   *  as one refusal that lists each with its hint. Nothing when there is none. */
  stopIfAny(): void {
    const [first] = this.found;
    if (first === undefined) return;
    if (this.found.length === 1) throw first;
    throw refusalError(this.refusals());
  }

  /** Stops the run with every finding where the next check needs what is missing. */
  stop(): never {
    this.stopIfAny();
    throw new Error('a preflight stopped with no finding'); // a bug: a finding comes first
  }

  /** The same problem found twice (a release manifest that two checks read) is said once. */
  private add(error: OacError): void {
    if (!this.found.some((e) => e.code === error.code && e.message === error.message))
      this.found.push(error);
  }
}

/** Each finding one line: its own lines (the pins a server presented …) join its message. */
function lineOf(e: OacError): string {
  return e.details.length === 0 ? e.message : `${e.message}: ${e.details.join('; ')}`;
}

function hintOf(e: OacError): { hint?: string } {
  return e.hint === undefined ? {} : { hint: e.hint };
}
