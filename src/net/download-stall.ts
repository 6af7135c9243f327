// DL-03: a transfer that brings less than 64 KiB in a minute stops (the numbers are options, so
// tests can use a short window).
import { linkedAbort } from './linked-abort.ts';

/**
 * DL-03 as tumbling windows from the start of each exchange: a window in which fewer than the
 * minimum arrived aborts the request. Waiting for headers and redirects counts, so a server that
 * never answers stalls too.
 */
export class StallWatch {
  readonly signal: AbortSignal;
  stalled = false;
  private bytes = 0;
  private readonly controller: AbortController;
  private readonly unlink: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(windowMs: number, minBytes: number, outer: AbortSignal | undefined) {
    ({ controller: this.controller, unlink: this.unlink } = linkedAbort(outer));
    this.signal = this.controller.signal;
    this.timer = setInterval(() => {
      if (this.bytes < minBytes) {
        this.stalled = true;
        this.controller.abort(new Error('stalled'));
      }
      this.bytes = 0;
    }, windowMs);
  }

  count(bytes: number): void {
    this.bytes += bytes;
  }

  stop(): void {
    clearInterval(this.timer);
    this.unlink();
  }
}
