/**
 * When to try a request again: a 503 or 429 (and a keyed write's 409 idempotency_in_flight)
 * after the answer's Retry-After, else after an exponential backoff; both capped and jittered, so
 * that clients turned away together do not come back together. The caller decides whether a
 * request may be retried at all: reads and keyed writes only.
 */
export interface RetryOptions {
  /** Tries in all, the first included (default 3); 1 never retries. */
  attempts?: number;
  /** The longest wait before a retry, whatever Retry-After asks (default 10,000 ms). */
  maxDelayMs?: number;
}

const RETRIED = new Set([429, 503]);

/** Whether an answer asks to be tried again later. */
export const asksRetry = (status: number, code: unknown): boolean => RETRIED.has(status) || (status === 409 && code === 'idempotency_in_flight');

/** Retry-After as delay-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `retry` (1 for the first): what Retry-After asks plus up to a
 * tenth more, or full jitter over 100 ms doubled per retry; never more than maxDelayMs.
 */
export function retryDelayMs(retryAfter: number | undefined, retry: number, maxDelayMs: number, random: () => number = Math.random): number {
  const delay = retryAfter === undefined ? random() * 100 * 2 ** (retry - 1) : retryAfter * (1 + random() / 10);
  return Math.min(maxDelayMs, delay);
}

/** Waits, or rejects with the signal's reason as soon as it aborts. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
