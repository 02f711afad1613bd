import { createHash } from 'node:crypto';
import { LIMITS } from '../limits';
import { currentCutoff, invocationDeadline } from '../invocation';
import { causeOf, log } from '../log';
import { claimKey, keepAnswer, keepPlan, leaveUnknown, releaseKey, type HeldKey } from './keys';
import { viewOf } from '../access/view';
import { ApiError } from '../errors';
import { answerOf, classify, errorAnswer } from '../answer/respond';
import type { HttpContext, HttpRequest, HttpResult } from '../contract';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Set on an answer that is a replay of the key's first one (Stripe's `Idempotent-Replayed`). */
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * The key as sent: the draft makes it a structured-field string (`"abc"`); a bare key is taken
 * too, since most clients send one. Printable ASCII without quote or backslash either way, so
 * a half-quoted key is refused rather than taken for another.
 */
function keyOf(header: string): string {
  const quoted = /^"(.*)"$/.exec(header);
  const key = quoted ? quoted[1] : header;
  if (key.length === 0 || key.length > LIMITS.maxIdempotencyKeyLength || !/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/.test(key)) {
    throw new ApiError('invalid_request', `Idempotency-Key must be 1 to ${LIMITS.maxIdempotencyKeyLength} printable ASCII characters, no quote or backslash`, {
      details: [{ path: 'headers.idempotency-key', message: 'not a valid key' }],
    });
  }
  return key;
}

/** Same route, same path parameters, same bytes, and the same view of its models' records (shared/access/view.ts): the same request. */
async function fingerprintOf({ event, context }: HttpRequest): Promise<string> {
  const request = context.apiRequest!;
  const view = await viewOf(request.caller, request.params, request.body);
  return createHash('sha256')
    .update(`${event.routeKey}\n${JSON.stringify(request.params)}\n`)
    .update(request.rawBody)
    .update(view === '' ? '' : `\n${view}`)
    .digest('base64url');
}

/**
 * Idempotent retries of writes (IETF httpapi draft "The Idempotency-Key HTTP Header Field";
 * Stripe's API): a request with a key runs once per caller and key; the same key with the same
 * request answers the first answer again without writing, with another request 422, and while
 * the first still runs 409. An answer of 500 or more gives the key back, since it wrote nothing;
 * outcome_unknown leaves it to the retry with its run, which recognises what that run wrote.
 */
/** The key each request holds, to settle once it has answered: this middleware's own state, so the contract below it need not know keys. */
const held = new WeakMap<HttpContext, HeldKey>();

export const idempotency = () => ({
  before: async (request: HttpRequest) => {
    const header = request.context.apiRequest!.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) return;
    const key = keyOf(header);
    const scope = request.context.caller?.subject ?? 'public';
    const fingerprint = await fingerprintOf(request);
    // The claim is this request's until the function is stopped: a retry after that takes the run over.
    const claim = await claimKey(scope, key, fingerprint, invocationDeadline() ?? Date.now());
    switch (claim.kind) {
      case 'claimed': {
        const claimed: HeldKey = { scope, key, fingerprint, token: claim.token, run: claim.run };
        held.set(request.context, claimed);
        request.context.apiRequest!.keyRun = { ...claim.run, keepPlan: (ids) => keepPlan(claimed, ids) };
        return;
      }
      case 'mismatch':
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used for a different request; send a new key with a new request', {
          details: [{ path: 'headers.idempotency-key', message: 'used for a different request' }],
        });
      case 'in_flight':
        throw new ApiError('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry later', {}, { 'retry-after': '1' });
      case 'done':
        if (!claim.answer) {
          throw new ApiError(
            'idempotency_answer_not_kept',
            `The first request with this Idempotency-Key answered ${claim.status}, and its answer was too large to keep; nothing was done again`,
            { first_status: claim.status },
          );
        }
        request.context.replay = { statusCode: claim.answer.status, headers: { ...claim.answer.headers, [REPLAYED_HEADER]: 'true' }, body: claim.answer.body };
    }
  },
  after: async (request: HttpRequest) => {
    const claimed = held.get(request.context);
    if (!claimed) return;
    const answer: HttpResult = answerOf(request.response!);
    request.response = answer;
    await settleKey(claimed, answer);
  },
  onError: async (request: HttpRequest) => {
    const claimed = held.get(request.context);
    if (!claimed) return;
    const apiError = classify(request.error);
    if (apiError.code === 'outcome_unknown') await settleKey(claimed, 'unknown');
    else await settleKey(claimed, apiError.status >= 500 ? undefined : errorAnswer(apiError));
  },
});

/**
 * Keeps the answer under the key; gives the key back after an answer that wrote nothing; or,
 * when the outcome is unknown, leaves it to the retry with its operation. A failure here must
 * not change the answer: the request's writes are done. The key then stays claimed until its
 * lease (the function's deadline) passes, and a retry after that takes the run over.
 */
async function settleKey(claimed: HeldKey, answer: HttpResult | 'unknown' | undefined): Promise<void> {
  const settleOnce = () => {
    if (answer === 'unknown') return leaveUnknown(claimed);
    if (answer) return keepAnswer(claimed, { status: answer.statusCode, headers: answer.headers, body: answer.body ?? '' });
    return releaseKey(claimed);
  };
  // The database that just failed the request often fails this too: a few more tries within a moment,
  // so that a retry after it recovers finds the key given back (or the answer kept), not held until the lease ends.
  const giveUpAt = Math.min(Date.now() + LIMITS.idempotencySettleMs, currentCutoff() ?? Number.POSITIVE_INFINITY);
  for (let attempt = 0; ; attempt++) {
    try {
      return await settleOnce();
    } catch (error) {
      if (Date.now() + 250 >= giveUpAt) return log.warn('idempotency_key_not_settled', causeOf(error));
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 500)));
    }
  }
}
