import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { db } from '../store/client';
import { TABLE_KEY } from '../store/table';
import { isConditionFailure } from '../store/write/write-token';
import { groupOf, packChange, unpackChange } from './group';
import type { Delivery, DeliveryQueue } from './queue';

/**
 * The local DeliveryQueue (`npm start`): deliveries waiting for their endpoint, as items of the
 * table itself, so that they last as the records do (dynalite keeps them on disk through a
 * kill -9) and are written by the same client. One partition per subscription, no model can
 * have it (model names start with a letter); the sort key is the group (./group.ts), then the
 * change's commit time and version, then its id: a group's deliveries are adjacent, in commit
 * order, and the same change sent twice is the same item. Drained by ./outbox-worker.ts.
 */
export const pendingPartition = (subscription: string) => `_feed#${subscription}`;

/** Versions are positive integers: zero-padded, they sort as numbers do. */
const orderOf = ({ change }: Delivery) => `${change.time}#${String(change.version).padStart(15, '0')}#${change.change_id}`;

const keyOf = (delivery: Delivery) => ({
  [TABLE_KEY.partitionKey]: pendingPartition(delivery.subscription),
  [TABLE_KEY.sortKey]: `${groupOf(delivery)}#${orderOf(delivery)}`,
});

/** A waiting delivery as the worker sees it. */
export interface Pending {
  delivery: Delivery;
  group: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due, epoch ms. */
  due: number;
  /** The last attempt's status or error. */
  failure?: string;
}

/** Sends at most this many puts at once: a bulk write's thousand changes do not open a thousand connections. */
const PUTS_AT_ONCE = 16;

export class Outbox implements DeliveryQueue {
  /** `sent` is told after each send (the worker of the same process wakes); `now` is epoch ms, moved by tests. */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly sent: () => void = () => undefined,
  ) {}

  async send(deliveries: ReadonlyArray<Delivery>): Promise<void> {
    const queue = [...deliveries];
    const putNext = async (): Promise<void> => {
      for (let delivery = queue.shift(); delivery; delivery = queue.shift()) await this.put(delivery);
    };
    await Promise.all(Array.from({ length: Math.min(PUTS_AT_ONCE, queue.length) }, putNext));
    if (deliveries.length > 0) this.sent();
  }

  /** Kept as it is when already waiting: a stream record read again must not restart its attempts. */
  private async put(delivery: Delivery): Promise<void> {
    try {
      await db().send(
        new PutCommand({
          TableName: settings().TABLE_NAME,
          Item: { ...keyOf(delivery), c: packChange(delivery.change), n: 0, due: this.now() },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
        }),
        inTime(),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}

const groupOfKey = (sortKey: string) => sortKey.slice(0, sortKey.indexOf('#'));

function pendingOf(subscription: string, item: Record<string, unknown>): Pending {
  const failure = item.last === undefined ? {} : { failure: String(item.last) };
  return {
    delivery: { subscription, change: unpackChange(item.c as Uint8Array) },
    group: groupOfKey(String(item[TABLE_KEY.sortKey])),
    attempts: Number(item.n),
    due: Number(item.due),
    ...failure,
  };
}

async function query(subscription: string, startsWith: string | undefined, limit?: number, start?: Record<string, unknown>) {
  return db().send(
    new QueryCommand({
      TableName: settings().TABLE_NAME,
      KeyConditionExpression: startsWith === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :group)',
      ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, ...(startsWith === undefined ? {} : { '#sk': TABLE_KEY.sortKey }) },
      ExpressionAttributeValues: { ':pk': pendingPartition(subscription), ...(startsWith === undefined ? {} : { ':group': startsWith }) },
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: start,
    }),
    inTime(),
  );
}

/** The first waiting delivery of each of the subscription's groups: the only one of its group that may be attempted. */
export async function* heads(subscription: string): AsyncGenerator<Pending> {
  let start: Record<string, unknown> | undefined;
  let previous: string | undefined;
  do {
    const page = await query(subscription, undefined, undefined, start);
    for (const item of page.Items ?? []) {
      const group = groupOfKey(String(item[TABLE_KEY.sortKey]));
      if (group !== previous) yield pendingOf(subscription, item);
      previous = group;
    }
    start = page.LastEvaluatedKey;
  } while (start);
}

/** The group's first waiting delivery, once the one before it is gone. */
export async function headOf(subscription: string, group: string): Promise<Pending | undefined> {
  const { Items = [] } = await query(subscription, `${group}#`, 1);
  return Items[0] && pendingOf(subscription, Items[0]);
}

/** How many deliveries of the subscription wait. */
export async function pendingCount(subscription: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: settings().TABLE_NAME,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
        ExpressionAttributeValues: { ':pk': pendingPartition(subscription) },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
      inTime(),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

/** The attempt failed and another is due at `due`. */
export async function postpone(pending: Pending, due: number, failure: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: settings().TABLE_NAME,
      Key: keyOf(pending.delivery),
      UpdateExpression: 'SET n = :n, due = :due, #last = :last',
      ExpressionAttributeNames: { '#last': 'last' },
      ExpressionAttributeValues: { ':n': pending.attempts + 1, ':due': due, ':last': failure },
    }),
    inTime(),
  );
}

/** Delivered, or a dead letter now: the group's next may go. */
export async function release(pending: Pending): Promise<void> {
  await db().send(new DeleteCommand({ TableName: settings().TABLE_NAME, Key: keyOf(pending.delivery) }), inTime());
}
