/**
 * What the SDK's and the socket's errors mean, read by name and code only (their messages and
 * stacks never reach a caller). The store passes them on as thrown; shared/http/respond.ts
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
  // A call cut off at the invocation's cutoff (shared/deadline.ts).
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

/**
 * A write that may have been applied although its call failed: its request may have reached
 * DynamoDB and only the answer was lost (a timeout, a reset connection, a broken pipe), or
 * DynamoDB answered a 500, which AWS says may follow a write that succeeded. A refused
 * connection or a throttle means it never was.
 */
export function mayHaveApplied(error: unknown): boolean {
  const e = (error ?? {}) as SdkError & { cause?: { package?: string } };
  if (e.cause?.package === '@middy/core') return false;
  if (isTimeout(error) || e.name === 'InternalServerError' || e.name === 'ServiceUnavailable') return true;
  const words = [e.code, e.name, ...(e.message ?? '').split(/[^A-Za-z_ ]+/)];
  return words.some((word) => word === 'ECONNRESET' || word === 'EPIPE' || word === 'ECONNABORTED' || word === 'socket hang up');
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
