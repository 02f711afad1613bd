/**
 * What the SDK's and the socket's errors mean, read by name and code only (their messages and
 * stacks never reach a caller). The store passes them on as thrown; shared/answer/respond.ts
 * answers them with these tests.
 */

/** SDK error names that mean "the database is busy or unreachable, try again". */
const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ResourceInUseException',
  'LimitExceededException',
  'TransactionInProgressException',
  // A call cut off at the invocation's cutoff (shared/invocation.ts).
  'AbortError',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ECONNABORTED']);

type SdkError = { name?: string; code?: string; message?: string };

/**
 * What an operator must fix, never a passing outage: a retry cannot help, and the answer is not
 * a 503 "retry later". `table_missing` is DynamoDB's ResourceNotFoundException (no such table in
 * this account and region, or not yet ACTIVE); `access_denied` a role without the grant;
 * `bad_credentials` keys that AWS does not accept, or none found.
 */
export type Misconfiguration = { kind: 'table_missing' } | { kind: 'access_denied'; action?: string } | { kind: 'bad_credentials' };

const BAD_CREDENTIALS = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'MissingAuthenticationTokenException',
  'InvalidClientTokenId',
  'ExpiredTokenException',
  'CredentialsProviderError',
]);

export function misconfiguration(error: unknown): Misconfiguration | undefined {
  const e = (error ?? {}) as SdkError;
  if (e.name === 'ResourceNotFoundException') return { kind: 'table_missing' };
  if (e.name === 'AccessDeniedException' || e.name === 'AccessDenied') {
    // AWS names the action it refused ("not authorized to perform: dynamodb:PutItem on ..."); only that word is kept.
    const action = /\bperform: ([a-z0-9-]+:[A-Za-z]+)\b/.exec(e.message ?? '')?.[1];
    return action ? { kind: 'access_denied', action } : { kind: 'access_denied' };
  }
  if (BAD_CREDENTIALS.has(e.name ?? '')) return { kind: 'bad_credentials' };
  return undefined;
}

/**
 * A call that got no answer in time: cut off at the invocation's cutoff (AbortError), or past
 * the SDK's connection or request timeout. middy's own early timeout is not one: that is the
 * function running out of time, which a bounded call never lets happen.
 */
export function isTimeout(error: unknown): boolean {
  const e = (error ?? {}) as SdkError & { cause?: { package?: string } };
  if (e.cause?.package === '@middy/core') return false;
  // The SDK also names a reset or broken pipe TimeoutError; its code tells them apart.
  return e.name === 'AbortError' || (e.name === 'TimeoutError' && (e.code === undefined || e.code === 'ETIMEDOUT'));
}

/** Where shared/store/attempts.ts tells, on a call's error, whether any of its attempts may have reached DynamoDB. */
export const REACHED = Symbol.for('recordgate.mayHaveReached');

/** Whether any attempt of the call that threw `error` may have reached DynamoDB; undefined for an error no call tagged. */
const reachedByAnyAttempt = (error: unknown): boolean | undefined =>
  typeof error === 'object' && error !== null ? (error as Record<symbol, boolean | undefined>)[REACHED] : undefined;

/** Names of failures that happen before a request leaves: no credentials, or ones AWS refuses outright. */
const NEVER_SENT = new Set(['CredentialsProviderError']);
/** Socket errors of a connection that was never made, so no request went out on it. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether one attempt that failed with `error` may have reached DynamoDB, so that its write may
 * be applied, now or later: everything but a connection never made (refused, no such host, the
 * SDK's connection timeout), or an answer in which DynamoDB said no (a 4xx: a throttle, a failed
 * condition, a bad request, all of which write nothing). A timeout, a reset or broken pipe, a
 * 5xx ("the request may have succeeded", AWS says of a 500) or a call aborted at the cutoff may
 * all follow a write that was applied or that is still on its way.
 */
export function reachedDatabase(error: unknown): boolean {
  const e = (error ?? {}) as SdkError & { cause?: { package?: string }; $metadata?: { httpStatusCode?: number } };
  if (e.cause?.package === '@middy/core') return false;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 400 && status < 500) return false;
  if (NEVER_SENT.has(e.name ?? '') || BAD_CREDENTIALS.has(e.name ?? '')) return false;
  if (e.name === 'TimeoutError' && /did not establish a connection/.test(e.message ?? '')) return false;
  const words = [e.code, e.name, ...(e.message ?? '').split(/[^A-Z_]+/)];
  return !words.some((word) => NOT_CONNECTED.has(word ?? ''));
}

/**
 * A write that may have been applied although its call failed: some attempt of the call may
 * have reached DynamoDB (shared/store/attempts.ts tags the call's error with what every attempt
 * did; a refused last attempt does not clear an earlier one that timed out). An error no call
 * tagged is judged by itself.
 */
export function mayHaveApplied(error: unknown): boolean {
  return reachedByAnyAttempt(error) ?? reachedDatabase(error);
}

/** DynamoDB busy or out of reach: throttled, failing, or no connection at all. */
export function isUnavailable(error: unknown): boolean {
  const e = (error ?? {}) as SdkError & { cause?: { package?: string } };
  if (e.cause?.package === '@middy/core') return false;
  // The SDK may wrap a socket error so that only its message still names the code.
  const networkFault = [e.code, e.name, ...(e.message ?? '').split(/[^A-Z_]+/)].some((word) => NETWORK_CODES.has(word ?? ''));
  return UNAVAILABLE.has(e.name ?? '') || networkFault;
}

/** DynamoDB refusing an item for its size (the store checks first, ItemTooLarge; an engine may count otherwise). */
export function refusedForSize(error: unknown): boolean {
  const e = (error ?? {}) as SdkError;
  return e.name === 'ValidationException' && /item size|size has exceeded|exceeds the maximum|too large/i.test(e.message ?? '');
}
