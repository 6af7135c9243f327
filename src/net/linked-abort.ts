// A controller of one's own that also aborts when a caller's signal does, listening to that
// signal only until unlink(): the caller's may live for days (run's), so nothing may stay
// attached to it after the work that followed it ends.

export interface LinkedAbort {
  controller: AbortController;
  unlink(): void;
}

export function linkedAbort(outer: AbortSignal | undefined): LinkedAbort {
  const controller = new AbortController();
  const follow = () => controller.abort(outer?.reason);
  if (outer?.aborted === true) follow();
  else outer?.addEventListener('abort', follow, { once: true });
  return { controller, unlink: () => outer?.removeEventListener('abort', follow) };
}

/**
 * `work`, or the signal's reason as soon as it aborts. undici does not settle a request that
 * still waits for a connection when its signal aborts (it waits for the connection first), so a
 * deadline or a stop must not depend on undici (issue #27.1). An answer that comes after the
 * abort is handed to `discard` (to free its connection).
 */
export function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  discard: (late: T) => void = () => undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (!signal.aborted) return resolve(value);
        try {
          discard(value);
        } catch {
          // Freeing a late answer is best effort; the caller has its error already.
        }
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('aborted', 'AbortError');
}
