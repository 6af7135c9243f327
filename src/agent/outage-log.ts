// The node service's lines while Core cannot be reached (issue #27.1): the first failed attempt
// of an outage is logged whole, then at most one line a minute, however often the node retries,
// so an outage of days does not fill the journal. A connection ends the outage.

export const OUTAGE_LOG_INTERVAL_MS = 60_000;

export class OutageLog {
  private reason = 'Core did not answer';
  private attempts = 0;
  private since: number | undefined;
  private lastLogged = 0;

  constructor(
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = OUTAGE_LOG_INTERVAL_MS,
  ) {}

  /** Why the last attempt failed (logged with the next retry, when its turn comes). */
  why(reason: string): void {
    this.reason = reason;
  }

  /** An attempt failed; the next is in `delayMs`. */
  retry(delayMs: number): void {
    const now = this.now();
    this.attempts += 1;
    this.since ??= now;
    const next = `${(delayMs / 1000).toFixed(1)} s`;
    if (this.attempts === 1) {
      this.lastLogged = now;
      this.log(`${this.reason}. Reconnecting in ${next}`);
      return;
    }
    if (now - this.lastLogged < this.intervalMs) return;
    this.lastLogged = now;
    const started = new Date(this.since).toISOString();
    this.log(
      `${this.reason}. Still reconnecting: ${this.attempts} attempts since ${started}, next in ${next}`,
    );
  }

  /** Connected: the next failure starts a new outage. */
  over(): void {
    this.attempts = 0;
    this.since = undefined;
  }
}
