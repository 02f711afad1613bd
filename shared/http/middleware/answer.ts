import type { OperationResult } from '../middleware';
import { errorResult, successResult, type HttpResult } from '../../answer/respond';
import type { HttpRequest } from '../../contract';

/** An operation's result as an answer. A copy: the outer middlewares change headers in place, and an operation may answer a shared constant. */
export const answerOf = (result: HttpResult | OperationResult): HttpResult =>
  'statusCode' in result ? { ...result, headers: { ...result.headers } } : successResult(result.data, result.status);

/**
 * Answers in the envelope: an operation's `{data, status?}` becomes the success envelope, any
 * throw anywhere in the chain one error envelope (shared/http/respond.ts classifies and logs
 * it). It sets the answer and lets the outer middlewares add their headers to it.
 */
export const inEnvelope = () => ({
  after: async (request: HttpRequest) => {
    request.response = answerOf(request.response!);
  },
  onError: async (request: HttpRequest) => {
    request.response = errorResult(request.error);
  },
});
