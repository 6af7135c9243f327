// Waiting for a condition with a deadline, never for a fixed time (issue #28 item 4): from the
// test process (waitUntil: a probe of Core, a screen, a command's result), or inside the host
// as one shell loop (waitInHost), which costs one round trip however many times it looks.
import type { E2eHost } from './host.ts';
import { delay } from './processes.ts';

export interface WaitOptions {
  /** Fails once this long has passed without the condition (the probe is tried first). */
  timeoutMs: number;
  /** Between two probes. */
  intervalMs: number;
}

/**
 * Calls `probe` every `intervalMs` until it gives a value other than undefined (and, with
 * `done`, one for which `done` holds); resolves to that value. After `timeoutMs` it fails with
 * an error naming `what` and the last value the probe gave. An error the probe throws ends the
 * wait at once.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  options: WaitOptions & { done?: (value: T) => boolean },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && (options.done?.(value) ?? true)) return value;
    if (Date.now() > deadline) {
      const seen = typeof value === 'string' ? `\n${value}` : ` ${JSON.stringify(value)}`;
      throw new Error(`waited ${options.timeoutMs} ms for ${what}, in vain; last seen:${seen}`);
    }
    await delay(options.intervalMs);
  }
}

/**
 * Waits inside the host: `condition` (sh) is tried every `intervalMs`, at most
 * timeoutMs / intervalMs times, in one `sh -c` (`for i in $(seq N); do …; sleep S; done`). Fails
 * naming `what`, with the output of `explain` (sh, run once the wait failed) when given.
 */
export async function waitInHost(
  host: E2eHost,
  what: string,
  condition: string,
  options: WaitOptions & { explain?: string },
): Promise<void> {
  const tries = Math.ceil(options.timeoutMs / options.intervalMs);
  const explain = options.explain === undefined ? '' : `${options.explain}; `;
  const r = await host.sh(
    `for i in $(seq ${tries}); do if ${condition}; then exit 0; fi; sleep ${options.intervalMs / 1000}; done; ${explain}exit 1`,
  );
  if (r.status !== 0)
    throw new Error(
      `waited ${options.timeoutMs} ms in e2e host ${host.name} for ${what}, in vain ` +
        `(${condition}, every ${options.intervalMs} ms; exit ${r.status})\n${r.stdout}${r.stderr}`,
    );
}
