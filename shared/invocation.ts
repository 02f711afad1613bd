import { AsyncLocalStorage } from 'node:async_hooks';
import { testCallTimeoutMs } from './config';
import { CALL_LIMITS } from './limits';

/**
 * The cutoff (epoch ms) of the work under way: every call to another service made inside it
 * (DynamoDB, SQS, S3, the secrets extension, a bot's HTTP API) is aborted then. It travels with
 * the async work instead of as a parameter, so that every store action, the OneBot receiver and
 * the secrets read obey the invocation they serve, however deep the call (docs/decisions.md).
 */
const cutoffs = new AsyncLocalStorage<number>();

/** Runs `work` with its calls cut off at `cutoff`, or earlier where an enclosing cutoff says so. */
export function withCutoff<T>(cutoff: number, work: () => Promise<T>): Promise<T> {
  return cutoffs.run(Math.min(cutoff, cutoffs.getStore() ?? Number.POSITIVE_INFINITY), work);
}

/** Runs one Lambda invocation's work with its calls cut off CALL_LIMITS.answerReserveMs before its timeout. */
export function withinInvocation<T>(context: { getRemainingTimeInMillis?: () => number } | undefined, work: () => Promise<T>): Promise<T> {
  const remaining = context?.getRemainingTimeInMillis?.();
  return remaining === undefined ? work() : withCutoff(Date.now() + remaining - CALL_LIMITS.answerReserveMs, work);
}

/**
 * Runs `work` with its calls cut off `reserveMs` before the current cutoff, leaving that much for
 * what must follow it in the same invocation; without a cutoff, as is.
 */
export function reserving<T>(reserveMs: number, work: () => Promise<T>): Promise<T> {
  const cutoff = cutoffs.getStore();
  return cutoff === undefined ? work() : withCutoff(cutoff - reserveMs, work);
}

/**
 * Starts background work (the spool's drain timer) outside the cutoff of the request that
 * happens to start it: timers inherit the context they are made in, and a drain bound to a
 * past request's cutoff would abort every call it makes.
 */
export function detached<T>(start: () => T): T {
  return cutoffs.exit(start);
}

/** The cutoff of the work under way (epoch ms), or undefined outside any. */
export const currentCutoff = (): number | undefined => cutoffs.getStore();

/** The signal of one call: aborted at the cutoff, and after `maxMs` when given; undefined when neither applies. */
export function callSignal(maxMs?: number): AbortSignal | undefined {
  const cutoff = cutoffs.getStore();
  const signals: AbortSignal[] = [];
  // AbortSignal.timeout takes whole milliseconds only (a RangeError otherwise); a cutoff may carry a fraction.
  if (cutoff !== undefined) signals.push(AbortSignal.timeout(Math.max(0, Math.ceil(cutoff - Date.now()))));
  if (maxMs !== undefined) signals.push(AbortSignal.timeout(Math.ceil(maxMs)));
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/**
 * The options of an SDK client's `send`: the SDK's own abortSignal, at the cutoff. A test run that
 * measured a slow machine may lengthen the call's answer timeout (never shorten it); deployed,
 * TEST_CALL_TIMEOUT_MS is unset and the client's CALL_LIMITS.requestTimeoutMs holds.
 */
export function inTime(): { abortSignal?: AbortSignal; requestTimeout?: number } {
  const signal = callSignal();
  const stretched = testCallTimeoutMs();
  return {
    ...(signal ? { abortSignal: signal } : {}),
    ...(stretched ? { requestTimeout: Math.max(stretched, CALL_LIMITS.requestTimeoutMs) } : {}),
  };
}

/** The SDK's HTTP handler settings of every client (DynamoDB, SQS, S3): bounded connect and answer. */
export const BOUNDED_HTTP = {
  connectionTimeout: CALL_LIMITS.connectionTimeoutMs,
  requestTimeout: CALL_LIMITS.requestTimeoutMs,
  // Since @smithy/node-http-handler 4.4 a passed requestTimeout only logs a warning without this.
  throwOnRequestTimeout: true,
} as const;
