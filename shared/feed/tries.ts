import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { db } from '../store/client';
import { TABLE_KEY, TTL_ATTRIBUTE } from '../store/table';
import { deliveryKeyOf } from './group';
import type { Delivery } from './queue';

/**
 * How many attempts a queued delivery has had, for functions/feed_delivery. SQS's
 * ApproximateReceiveCount is not it: a FIFO batch may hold several messages of one group, and
 * when the first fails the others go back unattempted, their count grown by one each time. So a
 * failed attempt is written down here (under a partition no model can have, gone by TTL after
 * the schedule's span), and read only on a message's second receive or later: a healthy
 * endpoint costs nothing.
 */
const keyOf = (delivery: Delivery) => ({ [TABLE_KEY.partitionKey]: '_feed_tries', [TABLE_KEY.sortKey]: deliveryKeyOf(delivery) });

/** Longer than the whole schedule (about 31.6 h): a retry never finds its count expired. */
const KEEP_SECONDS = 3 * 86_400;

/** The number of the attempt about to be made (1-based). */
export async function attemptNumber(delivery: Delivery, receiveCount: number): Promise<number> {
  // A first receive is a first attempt, also for a replay of a change tried before.
  if (receiveCount <= 1) return 1;
  const { Item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: keyOf(delivery), ConsistentRead: true }), inTime());
  return Item ? Number(Item.n) + 1 : 1;
}

export async function noteFailedAttempt(delivery: Delivery, attempt: number, nowMs: number): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: settings().TABLE_NAME,
      Item: { ...keyOf(delivery), n: attempt, [TTL_ATTRIBUTE]: Math.ceil(nowMs / 1000) + KEEP_SECONDS },
    }),
    inTime(),
  );
}

/** Done with (delivered after a retry, or dead): a replay of the same change starts from its first attempt. */
export async function forgetAttempts(delivery: Delivery): Promise<void> {
  await db().send(new DeleteCommand({ TableName: settings().TABLE_NAME, Key: keyOf(delivery) }), inTime());
}
