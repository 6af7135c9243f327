// Bounded retries with exponential backoff and jitter. Callers decide what is retryable; the
// Core client retries connection failures, 500, 502, 503 and 504, never a 4xx (issue #2).

export interface RetryPolicy {
  attempts: number; // total tries, including the first
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 5000 };

export function backoffDelay(
  policy: RetryPolicy,
  failedAttempt: number,
  random = Math.random,
): number {
  const exponential = policy.baseDelayMs * 2 ** (failedAttempt - 1);
  const capped = Math.min(policy.maxDelayMs, exponential);
  // Full jitter in the upper half: spreads nodes that lost Core at the same moment.
  return Math.round(capped / 2 + (capped / 2) * random());
}

export async function withRetry<T>(
  policy: RetryPolicy,
  isRetryable: (error: unknown) => boolean,
  attempt: (n: number) => Promise<T>,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let n = 1; ; n += 1) {
    try {
      return await attempt(n);
    } catch (error) {
      if (n >= policy.attempts || !isRetryable(error)) throw error;
      await sleep(backoffDelay(policy, n));
    }
  }
}
