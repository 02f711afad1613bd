import type { DynamoDBRecord } from 'aws-lambda';
import { FEED_NEWEST_DEAD_LETTERS } from '../limits';
import { type CheckedSubscription, matches } from './check-subscriptions';
import type { Change } from './change';
import { type DeadLetter, deadLetterCount, deadLetters, dropDeadLetter, newestDeadLetters } from './dead-letters';
import { lastDelivered } from './delivered';
import { changeOf } from './from-stream';
import { pendingCount } from './outbox';
import type { DeliveryQueue } from './queue';
import type { StreamPosition } from './stream/read';

/**
 * Replays for an operator (POST /api/feed/{subscription}/replay; docs/feed.md, "Dead letters and
 * replay"): the changes go through the DeliveryQueue again with their own change_id, so a
 * receiver that kept the first tells a replay from a new change by its `webhook-id`, and a
 * record's changes keep their order.
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

/** What a replay of a range queued, and where it stopped if it did before the range's end. */
export interface RangeReplayed {
  queued: number;
  stoppedAt?: StreamPosition;
}

/**
 * Queues again every change the subscription matches among the stream's records of a range
 * (shared/feed/stream/read.ts readRange), a page of the stream per send, in stream order: both
 * queues keep a send's order within a group, and a send per change made a replay of 2,000
 * changes outlast the local server's 29 s. Before each page after the first it asks `mayGoOn`
 * (the invocation's time): when not, it stops and says where, for the caller to go on from.
 */
export async function replayRange(
  subscription: CheckedSubscription,
  pages: AsyncIterable<{ records: DynamoDBRecord[]; position: StreamPosition }>,
  queue: DeliveryQueue,
  mayGoOn: () => boolean,
): Promise<RangeReplayed> {
  const reading = pages[Symbol.asyncIterator]();
  let queued = 0;
  let position: StreamPosition | undefined;
  for (;;) {
    if (position && !mayGoOn()) {
      await reading.return?.(undefined);
      return { queued, stoppedAt: position };
    }
    const page = await reading.next();
    if (page.done) return { queued };
    const changes = await Promise.all(page.value.records.map(changeOf));
    const matched = changes
      .filter((change): change is Change => change !== undefined && matches(subscription, change))
      .map((change) => ({ subscription: subscription.name, change }));
    await queue.send(matched);
    queued += matched.length;
    position = page.value.position;
  }
}

/** A dead letter as the delivery state shows it: which change, and how its attempts ended; not the records it carries. */
export interface DeadLetterSummary {
  change_id: string;
  model: string;
  tenant?: string;
  id: string;
  op: Change['op'];
  version: number;
  attempts: number;
  last_failure: string;
  /** When it became a dead letter. */
  at: string;
}

/** A subscription's delivery state, as GET /api/feed tells it. */
export interface FeedState {
  name: string;
  /** Deliveries waiting for their endpoint: counted in the local outbox; absent in AWS, where SQS counts only the whole queue. */
  pending?: number;
  dead_letters: number;
  newest_dead_letters: DeadLetterSummary[];
  last_delivered?: { change_id: string; at: string };
}

const summaryOf = ({ delivery: { change }, attempts, failure, at }: DeadLetter): DeadLetterSummary => ({
  change_id: change.change_id,
  model: change.model,
  ...(change.tenant === undefined ? {} : { tenant: change.tenant }),
  id: change.id,
  op: change.op,
  version: change.version,
  attempts,
  last_failure: failure,
  at,
});

/** The delivery state of a subscription; `countPending` where its waiting deliveries can be counted. */
export async function feedState(subscription: string, countPending?: (subscription: string) => Promise<number>): Promise<FeedState> {
  const [pending, dead, newest, last] = await Promise.all([
    countPending?.(subscription),
    deadLetterCount(subscription),
    newestDeadLetters(subscription, FEED_NEWEST_DEAD_LETTERS),
    lastDelivered(subscription),
  ]);
  return {
    name: subscription,
    ...(pending === undefined ? {} : { pending }),
    dead_letters: dead,
    newest_dead_letters: newest.map(summaryOf),
    ...(last ? { last_delivered: last } : {}),
  };
}

/** The delivery state on `npm start`, whose outbox counts each subscription's pending deliveries. */
export const localFeedState = (subscription: string): Promise<FeedState> => feedState(subscription, pendingCount);
