// The node service's lines while Core cannot be reached (issue #27.1): the first failed attempt
// of an outage is logged whole, then at most one line a minute, however often the node retries,
// so an outage of days does not fill the journal. A connection that lasts (STABLE_MS) ends the
// outage; one that Core or a proxy closes at once does not, so a flapping connection is logged
// at the same pace (a connection is said after each failure line, the rest not). The
// minute is measured on the monotonic clock: a wall clock stepped back cannot silence it.

export const OUTAGE_LOG_INTERVAL_MS = 60_000;
/** How long a connection must last before its end starts a new outage. */
export const STABLE_MS = 60_000;
/** Distinct reasons said within one minute, at most (a reason that varies is no flood). */
const MAX_REASONS = 4;

export interface OutageClock {
  /** Milliseconds on a clock that never steps (performance.now). */
  now(): number;
  /** The wall clock, for the "since" a line names. */
  wall(): Date;
}

const SYSTEM_CLOCK: OutageClock = { now: () => performance.now(), wall: () => new Date() };

export class OutageLog {
  private reason = 'Core did not answer';
  private attempts = 0;
  private since: Date | undefined;
  private lastLogged = -Infinity;
  private connectionSaid = false;
  private readonly saidThisMinute = new Set<string>();

  constructor(
    private readonly log: (line: string) => void,
    private readonly clock: OutageClock = SYSTEM_CLOCK,
    private readonly intervalMs = OUTAGE_LOG_INTERVAL_MS,
  ) {}

  /** Why the last attempt failed (logged with the next retry, when its turn comes). */
  why(reason: string): void {
    this.reason = reason;
  }

  /** An attempt failed; the next is in `delayMs`. */
  retry(delayMs: number): void {
    this.attempts += 1;
    this.since ??= this.clock.wall();
    const next = `${(delayMs / 1000).toFixed(1)} s`;
    // Within the minute only a reason not said yet in it is news (Core closed the connection,
    // then refuses it): a few lines at most, whatever the rate of attempts.
    const news = !this.saidThisMinute.has(this.reason) && this.saidThisMinute.size < MAX_REASONS;
    if (this.attempts > 1 && !this.due() && !news) return;
    if (this.due()) this.saidThisMinute.clear();
    this.saidThisMinute.add(this.reason);
    const since = this.since.toISOString();
    this.connectionSaid = false; // the next connection is news again
    this.say(
      this.attempts === 1
        ? `${this.reason}. Reconnecting in ${next}`
        : `${this.reason}. Still reconnecting: ${this.attempts} attempts since ${since}, next in ${next}`,
    );
  }

  /** A connection opened: said unless one was said since the last failure that was. */
  connected(line: string): void {
    if (this.connectionSaid) return;
    this.connectionSaid = true;
    this.say(line);
  }

  /** A connection lasted: the next failure starts a new outage. */
  over(): void {
    this.attempts = 0;
    this.since = undefined;
    this.connectionSaid = false;
  }

  private due(): boolean {
    return this.clock.now() - this.lastLogged >= this.intervalMs;
  }

  private say(line: string): void {
    if (this.due()) this.lastLogged = this.clock.now(); // a minute's window opens
    this.log(line);
  }
}
