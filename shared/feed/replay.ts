import type { DynamoDBRecord } from 'aws-lambda';
import { type CheckedSubscription, matches } from './check-subscriptions';
import { deadLetters, dropDeadLetter } from './dead-letters';
import { lastDelivered } from './delivered';
import { changeOf } from './from-stream';
import { pendingCount } from './outbox';
import type { DeliveryQueue } from './queue';

/**
 * Replays for an operator (docs/feed.md, "Replay"): the changes go through the DeliveryQueue
 * again with their own change_id, so a receiver that kept the first tells a replay from a new
 * change by its `webhook-id`, and a record's changes keep their order.
 */

/** Queues every dead letter of the subscription again, oldest first, each dropped once queued; returns how many. */
export async function replayDeadLetters(subscription: string, queue: DeliveryQueue): Promise<number> {
  let count = 0;
  for await (const letter of deadLetters(subscription)) {
    await queue.send([letter.delivery]);
    await dropDeadLetter(letter.delivery);
    count++;
  }
  return count;
}

/**
 * Queues again every change the subscription matches among the stream's records since a time
 * (shared/feed/stream/read.ts readSince, within the stream's 24 h), one after another in stream
 * order; returns how many.
 */
export async function replaySince(subscription: CheckedSubscription, pages: AsyncIterable<DynamoDBRecord[]>, queue: DeliveryQueue): Promise<number> {
  let count = 0;
  for await (const records of pages) {
    for (const record of records) {
      const change = await changeOf(record);
      if (!change || !matches(subscription, change)) continue;
      await queue.send([{ subscription: subscription.name, change }]);
      count++;
    }
  }
  return count;
}

/** A subscription's delivery state, as GET /api/feed and `npm run feed -- status` tell it. */
export interface FeedState {
  name: string;
  /** Deliveries waiting for their endpoint (the local outbox; in AWS, the queue's approximate count for all). */
  pending?: number;
  dead_letters: number;
  last_delivered?: { change_id: string; at: string };
}

export async function localFeedState(subscription: string): Promise<FeedState> {
  let dead = 0;
  for await (const _ of deadLetters(subscription)) dead++;
  const last = await lastDelivered(subscription);
  return { name: subscription, pending: await pendingCount(subscription), dead_letters: dead, ...(last ? { last_delivered: last } : {}) };
}
