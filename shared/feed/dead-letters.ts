import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { db } from '../store/client';
import { TABLE_KEY } from '../store/table';
import { packChange, unpackChange } from './group';
import { inPartition, queryPages } from './partition';
import type { Delivery } from './queue';

/**
 * Deliveries whose last scheduled attempt failed, kept in the table until an operator replays
 * them (POST /api/feed/{subscription}/replay): one item each, under a
 * partition per subscription no model can have (model names start with a letter), in the
 * order their changes committed. No TTL: a dead letter is a change a subscriber never got.
 */
export const deadLetterPartition = (subscription: string) => `_feed_dead#${subscription}`;

export interface DeadLetter {
  delivery: Delivery;
  /** How many attempts were made. */
  attempts: number;
  /** The last attempt's status or error (shared/feed/deliver.ts). */
  failure: string;
  /** When it became a dead letter, ISO 8601. */
  at: string;
}

const keyOf = ({ subscription, change }: Delivery) => ({
  [TABLE_KEY.partitionKey]: deadLetterPartition(subscription),
  [TABLE_KEY.sortKey]: `${change.time}#${change.change_id}`,
});

/** Written again by a worker that died before it let go of the delivery: the same item. */
export async function writeDeadLetter(letter: DeadLetter): Promise<void> {
  const { delivery, attempts, failure, at } = letter;
  await db().send(
    new PutCommand({ TableName: settings().TABLE_NAME, Item: { ...keyOf(delivery), c: packChange(delivery.change), n: attempts, last: failure, at } }),
    inTime(),
  );
}

const letterOf = (subscription: string, item: Record<string, unknown>): DeadLetter => ({
  delivery: { subscription, change: unpackChange(item.c as Uint8Array) },
  attempts: Number(item.n),
  failure: String(item.last),
  at: String(item.at),
});

/** A subscription's dead letters, oldest change first. */
export async function* deadLetters(subscription: string): AsyncGenerator<DeadLetter> {
  for await (const page of queryPages(inPartition(deadLetterPartition(subscription)))) {
    for (const item of page.Items ?? []) yield letterOf(subscription, item);
  }
}

/** How many dead letters the subscription has: counted by DynamoDB, no change read. */
export async function deadLetterCount(subscription: string): Promise<number> {
  let count = 0;
  for await (const page of queryPages({ ...inPartition(deadLetterPartition(subscription)), Select: 'COUNT' })) count += page.Count ?? 0;
  return count;
}

/** The subscription's `limit` newest dead letters (by their change's commit), newest first. */
export async function newestDeadLetters(subscription: string, limit: number): Promise<DeadLetter[]> {
  for await (const { Items = [] } of queryPages({ ...inPartition(deadLetterPartition(subscription)), ScanIndexForward: false, Limit: limit })) {
    return Items.map((item) => letterOf(subscription, item));
  }
  return [];
}

/** Removes a dead letter once its delivery is queued again. */
export async function dropDeadLetter(delivery: Delivery): Promise<void> {
  await db().send(new DeleteCommand({ TableName: settings().TABLE_NAME, Key: keyOf(delivery) }), inTime());
}
