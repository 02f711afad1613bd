import { ulid } from 'ulid';
import { invocationDeadline, withCutoff } from '../invocation';
import type { HttpResult, Operation } from '../contract';
import { jsonResult } from '../answer/respond';
import { ONEBOT_LIMITS } from '../limits';
import type { Delivery } from './delivery';
import { handleEvent } from './handle';
import { keepDelivery } from './keep/keep';
import { waitsForDatabase } from './keep/kept';
import { GO_CQHTTP_RESENDS } from './senders';
import { verifyDelivery } from './verify/verify';

/**
 * "Nothing to do" is 200 `{}`, not 204: every sender reads an empty object as no quick
 * operation, and LLOneBot calls res.json() on any answer, logging a warning for each empty 204.
 */
const NOTHING: HttpResult = jsonResult(200, {});

/**
 * The OneBot 11 HTTP POST receiver, behind every OneBot route: verifies the delivery
 * (verify/verify.ts), then handles its event within a cutoff (handle.ts). A verified event is
 * answered 200 even when the database is down, hung or misconfigured: it is kept (keep/) and
 * stored later.
 */
export const onebotReceive: Operation = async ({ event: request, rawBody, headers }) => {
  const { event, signed } = await verifyDelivery(headers, rawBody);
  // The sender's clock runs from its request's arrival (API Gateway stamps it), not from this
  // handler's start: a cold start or a slow body has already spent some of its timeout.
  const arrived = request.requestContext.timeEpoch;
  const lateAt = (at: number) => at - arrived >= GO_CQHTTP_RESENDS.timeoutMs;
  const started = Date.now();
  const delivery: Delivery = { id: ulid(), rawBody, headers, receivedAt: new Date(arrived).toISOString(), signed, late: lateAt(started) };
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
    await keepDelivery({ ...delivery, late: lateAt(Date.now()) }, error);
    return NOTHING;
  }
};
