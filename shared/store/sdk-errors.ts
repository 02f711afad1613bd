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
  'ResourceNotFoundException',
  'ResourceInUseException',
  'LimitExceededException',
  'TransactionInProgressException',
  'UnrecognizedClientException',
  'AccessDeniedException',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ECONNABORTED']);

type SdkError = { name?: string; code?: string; message?: string };

/** DynamoDB busy or out of reach: throttled, failing, or no connection at all. */
export function isUnavailable(error: unknown): boolean {
  const e = (error ?? {}) as SdkError;
  // The SDK may wrap a socket error so that only its message still names the code.
  const networkFault = [e.code, e.name, ...(e.message ?? '').split(/[^A-Z_]+/)].some((word) => NETWORK_CODES.has(word ?? ''));
  return UNAVAILABLE.has(e.name ?? '') || networkFault;
}

/** DynamoDB refusing an item for its size (the store checks first, ItemTooLarge; an engine may count otherwise). */
export function refusedForSize(error: unknown): boolean {
  const e = (error ?? {}) as SdkError;
  return e.name === 'ValidationException' && /item size|size has exceeded|exceeds the maximum|too large/i.test(e.message ?? '');
}
