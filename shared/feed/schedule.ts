/**
 * When a webhook is attempted, in seconds after the previous attempt failed: the schedule of
 * Standard Webhooks' reference implementation (at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h). After the last attempt fails the change goes to the dead letters (./dead-letters.ts).
 */
export const RETRY_SCHEDULE_SECONDS: ReadonlyArray<number> = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

/** An attempt with no answer within this long has failed. */
export const ATTEMPT_TIMEOUT_MS = 15_000;

/** The delay before attempt `attempt` (1-based), or undefined when `attempt` is past the last. */
export function delayBefore(attempt: number): number | undefined {
  return RETRY_SCHEDULE_SECONDS[attempt - 1];
}
