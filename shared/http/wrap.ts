import type { ErrorEnvelope } from './envelope';
import type { ErrorCode } from './errors';

// Apart from the envelope's zod schemas (./envelope.ts, for the OpenAPI document and the
// client), so that answering a request does not build them at every cold start.

export type SuccessEnvelope<T> = { status: 'success'; message: 'ok'; data: T };

export function success<T>(data: T): SuccessEnvelope<T> {
  return { status: 'success', message: 'ok', data };
}

export function failure(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): ErrorEnvelope {
  return { status: 'error', message, data: { error: code, ...extra } };
}
