// What a file's progress and the wait for Core look like on screen (OPS-01), the same on a
// terminal and on a pipe: bytes done of total, rate and time left, measured from the events'
// arrival (the child's events arrive live, so the installer's clock is the transfer's).
import type { EngineEvent } from '../core/events.ts';

type Progress = Extract<EngineEvent, { type: 'progress' }>;

interface Transfer {
  since: number;
  from: number;
}

/** Per file: when this run's transfer began and at how many bytes (a resumed part's length). */
export class TransferClock {
  private readonly transfers = new Map<string, Transfer>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The event as one line; `Resuming …` when a transfer continues an earlier run's part. */
  describe(event: Progress): string {
    const { file, received, total } = event;
    if (event.phase === 'start' || event.phase === 'resuming' || event.phase === 'restarting')
      this.transfers.set(file, { since: this.now(), from: received });
    if (event.phase === 'start') return `Downloading ${file} (${size(total)})`;
    if (event.phase === 'resuming')
      return `Resuming ${file} at ${size(received)} of ${size(total)}`;
    if (event.phase === 'restarting')
      return `${file}: the server cannot resume; starting again from zero`;
    if (event.phase === 'done') return `${file}: ${size(total)}, verified`;
    return `${file}: ${size(received)} of ${size(total)}${this.pace(file, received, total)}`;
  }

  private pace(file: string, received: number, total: number): string {
    let transfer = this.transfers.get(file);
    if (transfer === undefined) {
      transfer = { since: this.now(), from: received };
      this.transfers.set(file, transfer);
    }
    const seconds = (this.now() - transfer.since) / 1000;
    const rate = seconds > 0 ? (received - transfer.from) / seconds : 0;
    const percent = total > 0 ? ` (${Math.floor((received / total) * 100)} %)` : '';
    if (seconds < 1 || rate <= 0) return percent;
    return `${percent}, ${size(rate)}/s, ${duration((total - received) / rate)} left`;
  }
}

/** The wait for Core: how long, and what Core last said. */
export function describeWait(event: Extract<EngineEvent, { type: 'waiting' }>): string {
  return `Waiting for Core (${duration(event.elapsed)}): ${event.said}`;
}

export function size(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(2)} GiB`;
}

export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
