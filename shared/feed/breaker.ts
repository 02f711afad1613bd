import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime, reserving } from '../invocation';
import { db } from '../store/client';
import { TABLE_KEY } from '../store/table';
import { afterFailure, answered, attemptDelivery, type AttemptOutcome, type AttemptSettings, type WebhookSubscription } from './deliver';
import type { Delivery } from './queue';
import { ATTEMPT_TIMEOUT_MS } from './schedule';

/**
 * A circuit breaker per subscription, so that an endpoint that stopped answering cannot hold the
 * deliverers' slots (50 at once in AWS) that every other subscription shares: after
 * `timeoutsToOpen` attempts in a row left unanswered for their whole timeout, the subscription's
 * deliveries are not attempted for `openMs` but counted as failed attempts at once and put back on
 * the schedule (docs/feed.md "Delivery"); then one delivery is let through as a probe, whose
 * answer closes the breaker and whose silence opens it again. Only silence counts: an endpoint
 * that answers, even 5xx, answers quickly and holds no slot, and its retries keep every attempt.
 *
 * The state is one item per subscription, under a partition no model can have, so every
 * deliverer sees it; each reads a healthy or an open one at most once per `readEveryMs` (an
 * eventually consistent read), and a healthy subscription writes nothing.
 */
export const BREAKER = {
  timeoutsToOpen: 5,
  openMs: 60_000,
  readEveryMs: 1_000,
} as const;

/** What the breaker lets a delivery do now. */
export type Passage = 'attempt' | 'probe' | 'skip';

interface State {
  timeouts: number;
  /** Epoch ms; absent while closed. */
  openUntil?: number;
  /** Epoch ms: a deliverer's probe is under way until then. */
  probeUntil?: number;
}

const keyOf = (subscription: string) => ({ [TABLE_KEY.partitionKey]: '_feed_breaker', [TABLE_KEY.sortKey]: subscription });
const CLOSED: State = { timeouts: 0 };

/** Per deliverer (a Lambda container, the local server): each subscription's state as last read or written, and when. */
const known = new Map<string, { state: State; at: number }>();

const stateOf = (item: Record<string, unknown> | undefined): State =>
  item
    ? {
        timeouts: Number(item.timeouts ?? 0),
        ...(item.open_until === undefined ? {} : { openUntil: Number(item.open_until) }),
        ...(item.probe_until === undefined ? {} : { probeUntil: Number(item.probe_until) }),
      }
    : CLOSED;

async function current(subscription: string, now: number): Promise<State> {
  const cached = known.get(subscription);
  // A state between healthy and open is read every time: the next unanswered attempt may open it.
  const settled = cached && (cached.state.timeouts === 0 || cached.state.openUntil !== undefined);
  if (settled && now - cached.at < BREAKER.readEveryMs) return cached.state;
  const { Item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: keyOf(subscription) }), inTime());
  const state = stateOf(Item);
  known.set(subscription, { state, at: now });
  return state;
}

/**
 * Whether a delivery of `subscription` is attempted now. Once the open time has passed, one
 * deliverer at a time wins the probe (a conditional write, held for an attempt's timeout and a
 * margin, so that a deliverer that died mid-probe leaves it to another); the others skip.
 */
export async function passage(subscription: string, now: number): Promise<Passage> {
  const state = await current(subscription, now);
  if (state.openUntil === undefined) return 'attempt';
  if (now < state.openUntil || now < (state.probeUntil ?? 0)) return 'skip';
  const hold = now + ATTEMPT_TIMEOUT_MS + 5_000;
  try {
    await db().send(
      new UpdateCommand({
        TableName: settings().TABLE_NAME,
        Key: keyOf(subscription),
        UpdateExpression: 'SET probe_until = :hold',
        ConditionExpression: 'open_until <= :now AND (attribute_not_exists(probe_until) OR probe_until <= :now)',
        ExpressionAttributeValues: { ':now': now, ':hold': hold },
      }),
      inTime(),
    );
    known.set(subscription, { state: { ...state, probeUntil: hold }, at: now });
    return 'probe';
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // Another deliverer's probe (or a close): this one skips until it reads the state again, without a write per delivery.
    known.set(subscription, { state: { ...state, probeUntil: now + BREAKER.readEveryMs }, at: now });
    return 'skip';
  }
}

/**
 * What an attempt tells the breaker: `answered` when the endpoint answered at all (any status),
 * false when it left the attempt unanswered until its timeout. Other failures (no connection,
 * refused at once) hold no slot and tell it nothing.
 */
export async function noteAttempt(subscription: string, answered: boolean, now: number): Promise<void> {
  if (answered) {
    const state = await current(subscription, now);
    if (state.timeouts === 0 && state.openUntil === undefined) return;
    await db().send(new DeleteCommand({ TableName: settings().TABLE_NAME, Key: keyOf(subscription) }), inTime());
    known.set(subscription, { state: CLOSED, at: now });
    return;
  }
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: settings().TABLE_NAME,
      Key: keyOf(subscription),
      UpdateExpression: 'ADD timeouts :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
    inTime(),
  );
  let state = stateOf(Attributes);
  if (state.timeouts >= BREAKER.timeoutsToOpen) {
    // Opened, or opened again after a probe that went unanswered; the probe's hold is let go with it.
    const { Attributes: opened } = await db().send(
      new UpdateCommand({
        TableName: settings().TABLE_NAME,
        Key: keyOf(subscription),
        UpdateExpression: 'SET open_until = :until REMOVE probe_until',
        ExpressionAttributeValues: { ':until': now + BREAKER.openMs },
        ReturnValues: 'ALL_NEW',
      }),
      inTime(),
    );
    state = stateOf(opened);
  }
  known.set(subscription, { state, at: now });
}

/** The failure a delivery not attempted is counted with: its dead letter, if it comes to that, says why. */
export const NOT_ATTEMPTED = 'not attempted: the endpoint left its last attempts unanswered';

/**
 * Time kept after an attempt for what its outcome writes (the breaker, the attempt's count, the
 * queue's visibility): an attempt cut off by the invocation's end still leaves a retry behind.
 */
const OUTCOME_RESERVE_MS = 2_000;

/**
 * One attempt of a delivery, unless the subscription's breaker is open: then none, and the
 * outcome of a failed attempt, so that the delivery goes on along the schedule (and to the dead
 * letters after its last) as if its endpoint had been tried.
 */
export async function attemptUnlessOpen(delivery: Delivery, subscription: WebhookSubscription, attempt: AttemptSettings): Promise<AttemptOutcome> {
  const now = attempt.now ?? Date.now;
  if ((await passage(subscription.name, now())) === 'skip') return afterFailure(attempt.attempt, NOT_ATTEMPTED);
  const outcome = await reserving(OUTCOME_RESERVE_MS, () => attemptDelivery(delivery, subscription, attempt));
  const heard = answered(outcome);
  if (heard !== undefined) await noteAttempt(subscription.name, heard, now());
  return outcome;
}
