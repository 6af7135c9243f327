// DL-03: a transfer that brings less than 64 KiB in a minute stops (the numbers are options, so
// tests can use a short window).

/**
 * DL-03 as tumbling windows from the start of each exchange: a window in which fewer than the
 * minimum arrived aborts the request. Waiting for headers and redirects counts, so a server that
 * never answers stalls too.
 */
export class StallWatch {
  readonly signal: AbortSignal;
  stalled = false;
  private bytes = 0;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: () => void;

  constructor(
    windowMs: number,
    minBytes: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    this.signal = this.controller.signal;
    this.timer = setInterval(() => {
      if (this.bytes < minBytes) {
        this.stalled = true;
        this.controller.abort(new Error('stalled'));
      }
      this.bytes = 0;
    }, windowMs);
    this.onAbort = () => this.controller.abort(outer?.reason);
    if (outer?.aborted) this.onAbort();
    outer?.addEventListener('abort', this.onAbort, { once: true });
  }

  count(bytes: number): void {
    this.bytes += bytes;
  }

  stop(): void {
    clearInterval(this.timer);
    this.outer?.removeEventListener('abort', this.onAbort);
  }
}
