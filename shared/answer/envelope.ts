import type { ErrorEnvelope } from './envelope-schema';
import type { ErrorCode } from '../errors';
import { LIMITS } from '../limits';

// The envelope every answer is in. Its zod schemas (./envelope-schema.ts, for the OpenAPI
// document and the client) are apart, so that answering a request does not build them at
// every cold start.

export type SuccessEnvelope<T> = { status: 'success'; message: 'ok'; data: T };

export function success<T>(data: T): SuccessEnvelope<T> {
  return { status: 'success', message: 'ok', data };
}

/** A request with 60,000 unknown keys has 60,000 problems; the answer lists the first ones and the total. */
function capDetails(extra: Record<string, unknown>): Record<string, unknown> {
  const details = extra.details;
  if (!Array.isArray(details) || details.length <= LIMITS.maxErrorDetails) return extra;
  return { ...extra, details: details.slice(0, LIMITS.maxErrorDetails), details_total: details.length };
}

export function failure(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): ErrorEnvelope {
  return { status: 'error', message, data: { error: code, ...capDetails(extra) } };
}
