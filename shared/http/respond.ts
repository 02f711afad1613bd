import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { stringifyExactJson } from '../json/exact-json';
import { failure, success } from './wrap';
import { ApiError } from './errors';
import { log } from '../log';

export type HttpResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string> };

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function jsonResult(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: stringifyExactJson(body) };
}

export const successResult = (data: unknown, statusCode = 200): HttpResult => jsonResult(statusCode, success(data));

/** SDK error names that mean "the database is busy or unreachable, try again". */
const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'InternalServerError',
  'ServiceUnavailable', 'ServiceUnavailableException', 'TimeoutError', 'RequestTimeout', 'RequestTimeoutException',
  'ResourceNotFoundException', 'ResourceInUseException', 'LimitExceededException', 'TransactionInProgressException',
  'UnrecognizedClientException', 'AccessDeniedException',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ECONNABORTED']);

/** What a thrown error means to the caller. Nothing of an SDK message or stack reaches the body. */
export function classify(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = (error ?? {}) as { name?: string; code?: string; message?: string; partial?: Record<string, unknown>; $metadata?: unknown };
  const partial = e.partial ?? {};
  if (e.name === 'ValidationException' && /item size|size has exceeded|exceeds the maximum|too large/i.test(e.message ?? '')) {
    return new ApiError('payload_too_large', 'A record would exceed DynamoDB\'s 400 KB item size', partial);
  }
  // The SDK may wrap a socket error so that only its message still names the code.
  const networkFault = [e.code, e.name, ...(e.message ?? '').split(/[^A-Z_]+/)].some((word) => NETWORK_CODES.has(word ?? ''));
  if (UNAVAILABLE.has(e.name ?? '') || networkFault) {
    return new ApiError('database_unavailable', 'The database is unavailable or overloaded; retry later', partial, { 'retry-after': '1' });
  }
  return new ApiError('internal', 'Internal error; it has been logged', partial);
}

export function errorResult(error: unknown): HttpResult {
  const apiError = classify(error);
  if (apiError.status >= 500) {
    const e = error as { name?: string; message?: string; stack?: string };
    log.error(apiError.code, { name: e?.name, message: e?.message, stack: e?.stack });
  }
  return jsonResult(apiError.status, failure(apiError.code, apiError.message, apiError.extra), apiError.headers);
}
