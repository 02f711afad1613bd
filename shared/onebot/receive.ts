import { ulid } from 'ulid';
import { invocationDeadline, withCutoff } from '../invocation';
import { ApiError } from '../errors';
import type { HttpResult, Operation } from '../contract';
import { jsonResult } from '../answer/respond';
import { ONEBOT_LIMITS } from '../limits';
import { parseBody, parseEvent, sameId } from './receiving/events';
import { handleEvent } from './handle';
import { keepDelivery } from './keeping/keep';
import { scheduleDrain } from './replay';
import { waitsForDatabase, type Delivery } from './keeping/delivery';
import { onebotSettings } from './receiving/settings';
import { GO_CQHTTP_RESENDS } from './receiving/senders';
import { signatureMatches } from './receiving/signature';

/**
 * "Nothing to do" is 200 `{}`, not 204: every sender reads an empty object as no quick
 * operation, and LLOneBot calls res.json() on any answer, logging a warning for each empty 204.
 */
const NOTHING: HttpResult = jsonResult(200, {});

/**
 * The OneBot 11 HTTP POST receiver, behind every OneBot route. Checks run in NoneBot's order:
 * X-Self-ID (400), signature when a secret is set (401 missing, 403 wrong), then the allow-list
 * (403), then the body (400). The signature is checked over the raw bytes before any parsing.
 * A verified event is answered 200 even when the database is down, hung or misconfigured: it
 * is kept and stored later.
 */
export const onebotReceive: Operation = async ({ event: request, rawBody, headers }) => {
  const selfId = headers['x-self-id']?.trim();
  if (!selfId) throw new ApiError('invalid_request', 'The X-Self-ID header is missing', { details: [{ path: 'X-Self-ID', message: 'required' }] });
  const { secret, selfIds } = await onebotSettings();
  if (secret !== undefined) {
    const signature = headers['x-signature']?.trim();
    if (!signature) throw new ApiError('unauthorized', 'The X-Signature header is missing; this receiver has a secret');
    if (!signatureMatches(secret, rawBody, signature)) throw new ApiError('forbidden', 'The X-Signature does not match the body');
  }
  if (selfIds && !selfIds.has(selfId)) throw new ApiError('forbidden', `Bot ${selfId} is not in ONEBOT_SELF_IDS`);

  const event = parseEvent(parseBody(rawBody));
  // The allow-list holds for the account the event names too, not only the header.
  if (selfIds && event.self_id !== undefined && !sameId(event.self_id, selfId)) {
    throw new ApiError('forbidden', "The event's self_id is not the X-Self-ID bot");
  }
  // The sender's clock runs from its request's arrival (API Gateway stamps it), not from this
  // handler's start: a cold start or a slow body has already spent some of its timeout.
  const arrived = request.requestContext.timeEpoch;
  const lateAt = (at: number) => at - arrived >= GO_CQHTTP_RESENDS.timeoutMs;
  const started = Date.now();
  const delivery: Delivery = { id: ulid(), rawBody, headers, receivedAt: new Date(arrived).toISOString(), signed: secret !== undefined, late: lateAt(started) };
  // The database work stops early enough to keep the delivery instead, before the sender or the
  // function gives up; a delivery its sender has already given up on gets the whole budget.
  const cutoff = Math.min(
    (delivery.late ? started : arrived) + ONEBOT_LIMITS.storeWithinMs,
    (invocationDeadline() ?? Number.POSITIVE_INFINITY) - ONEBOT_LIMITS.keepReserveMs,
  );
  try {
    return jsonResult(200, await withCutoff(cutoff, () => handleEvent(delivery, event, true)));
  } catch (error) {
    if (!waitsForDatabase(error)) throw error;
    // Verified, and nobody re-sends on a 5xx: keep it and store it once the database is back.
    if ((await keepDelivery({ ...delivery, late: lateAt(Date.now()) }, error)) === 'spool') scheduleDrain();
    return NOTHING;
  }
};
