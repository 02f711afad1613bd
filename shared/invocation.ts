import { AsyncLocalStorage } from 'node:async_hooks';
import { testCallTimeoutMs } from './config';
import { CALL_LIMITS, LIMITS } from './limits';

/**
 * The invocation the work under way serves, in one AsyncLocalStorage context: it travels with the
 * async work instead of as a parameter, so that every store action, the OneBot receiver, the
 * secrets read and every log line obey and name the invocation they serve, however deep the call
 * (docs/decisions.md), as Powertools' Logger keeps the Lambda context for every line.
 */
interface Invocation {
  /** Lambda's awsRequestId, on every log line written inside (shared/log.ts). */
  requestId?: string;
  /** When Lambda stops the invocation (epoch ms): long work stops short of it and says so. */
  deadline?: number;
  /** When every call to another service made inside is aborted (epoch ms): DynamoDB, SQS, S3, the secrets extension, a bot's HTTP API. */
  cutoff?: number;
  /** The caller's digest (shared/auth/authorize.ts `subject`), once the HTTP chain has authorized it. */
  subject?: string;
}

const invocations = new AsyncLocalStorage<Invocation>();

const earlier = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/**
 * Runs one Lambda invocation's work as that invocation: its request id, its deadline, and its
 * calls cut off CALL_LIMITS.answerReserveMs before the timeout, so the function answers by itself.
 * Without a context (a direct call), the work runs as it is.
 */
export function withinInvocation<T>(
  context: { awsRequestId?: string; getRemainingTimeInMillis?: () => number } | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (context === undefined) return work();
  const remaining = context.getRemainingTimeInMillis?.();
  const deadline = remaining === undefined ? undefined : Date.now() + remaining;
  const cutoff = deadline === undefined ? undefined : deadline - CALL_LIMITS.answerReserveMs;
  const enclosing = invocations.getStore();
  return invocations.run({ requestId: context.awsRequestId, deadline, cutoff: earlier(cutoff, enclosing?.cutoff) }, work);
}

/**
 * Runs `work` as the current invocation but ending at `deadline`, its calls not cut off any
 * earlier than they were: what a bulk write may still start (bulkMayContinue) is measured
 * against it. A caller outside Lambda states its deadline this way.
 */
export function withDeadline<T>(deadline: number, work: () => Promise<T>): Promise<T> {
  return invocations.run({ ...invocations.getStore(), deadline }, work);
}

/** Runs `work` with its calls cut off at `cutoff`, or earlier where an enclosing cutoff says so. */
export function withCutoff<T>(cutoff: number, work: () => Promise<T>): Promise<T> {
  const enclosing = invocations.getStore();
  return invocations.run({ ...enclosing, cutoff: earlier(cutoff, enclosing?.cutoff) }, work);
}

/**
 * Runs `work` with its calls cut off `reserveMs` before the current cutoff, leaving that much for
 * what must follow it in the same invocation; without a cutoff, as is.
 */
export function reserving<T>(reserveMs: number, work: () => Promise<T>): Promise<T> {
  const cutoff = currentCutoff();
  return cutoff === undefined ? work() : withCutoff(cutoff - reserveMs, work);
}

/**
 * Starts background work (the spool's drain timer) outside the invocation that happens to start
 * it: timers inherit the context they are made in, and a drain bound to a past request's cutoff
 * would abort every call it makes (and name that request on its log lines).
 */
export function detached<T>(start: () => T): T {
  return invocations.exit(start);
}

/** The request id of the invocation under way, or undefined outside any. */
export const currentRequestId = (): string | undefined => invocations.getStore()?.requestId;

/**
 * Names the caller the invocation under way serves: the HTTP chain learns it only after the
 * invocation began (shared/http/middleware/authorize.ts), so it is set on the invocation, and
 * every record write from then on carries it to the change feed (shared/store/table.ts
 * SUBJECT_ATTRIBUTE) without each action being handed it.
 */
export function servingCaller(subject: string): void {
  const invocation = invocations.getStore();
  if (invocation) invocation.subject = subject;
}

/** The digest of the caller the invocation under way serves, or undefined (no caller, or outside any). */
export const currentSubject = (): string | undefined => invocations.getStore()?.subject;

/** When Lambda stops the invocation under way (epoch ms), or undefined outside any. */
export const invocationDeadline = (): number | undefined => invocations.getStore()?.deadline;

/** The cutoff of the work under way (epoch ms), or undefined outside any. */
export const currentCutoff = (): number | undefined => invocations.getStore()?.cutoff;

/**
 * Whether a write of many records (create, update, delete) may start another: not within
 * LIMITS.bulkStopBeforeDeadlineMs of the invocation's deadline, so that it answers with what it
 * did (and a cursor to go on) before Lambda stops it. Without a deadline, always.
 */
export function bulkMayContinue(): boolean {
  const deadline = invocationDeadline();
  return deadline === undefined || Date.now() < deadline - LIMITS.bulkStopBeforeDeadlineMs;
}

/** The signal of one call: aborted at the cutoff, and after `maxMs` when given; undefined when neither applies. */
export function callSignal(maxMs?: number): AbortSignal | undefined {
  const cutoff = currentCutoff();
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
