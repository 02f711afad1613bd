import { answerOf, errorResult, type ErrorHooks } from '../../answer/respond';
import type { HttpRequest } from '../../contract';

/**
 * Answers in the envelope: an operation's `{data, status?}` becomes the success envelope, any
 * throw anywhere in the chain one error envelope (shared/answer/respond.ts classifies and logs
 * it, and tells `hooks` what they listen for). It sets the answer and lets the outer middlewares
 * add their headers to it.
 */
export const inEnvelope = (hooks: ErrorHooks) => ({
  after: async (request: HttpRequest) => {
    request.response = answerOf(request.response!);
  },
  onError: async (request: HttpRequest) => {
    request.response = errorResult(request.error, hooks);
  },
});
