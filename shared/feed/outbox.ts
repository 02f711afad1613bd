import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { db } from '../store/client';
import { TABLE_KEY } from '../store/table';
import { groupOf, packChange, unpackChange } from './group';
import { inPartition, queryPages } from './partition';
import type { Delivery, DeliveryQueue } from './queue';

/**
 * The local DeliveryQueue (`npm start`): deliveries waiting for their endpoint, as items of the
 * table itself, so that they last as the records do (dynalite keeps them on disk through a
 * kill -9) and are written by the same client. One partition per subscription, no model can
 * have it (model names start with a letter); the sort key is the group (./group.ts), then the
 * order it was sent in, so a group's deliveries are adjacent and in send order, which is commit
 * order: the consumer sends one record's changes one after another (shared/feed/consume.ts).
 * Not the change's time and version: the time is whole seconds, and a record deleted and
 * created again within one second starts again at version 1. Drained by ./outbox-worker.ts.
 */
export const pendingPartition = (subscription: string) => `_feed#${subscription}`;

const keyOf = (subscription: string, sortKey: string) => ({ [TABLE_KEY.partitionKey]: pendingPartition(subscription), [TABLE_KEY.sortKey]: sortKey });

/** A waiting delivery as the worker sees it. */
export interface Pending {
  delivery: Delivery;
  group: string;
  /** Its item's sort key. */
  key: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due, epoch ms. */
  due: number;
  /** The last attempt's status or error. */
  failure?: string;
}

/** Sends at most this many puts at once: a bulk write's thousand changes do not open a thousand connections. */
const PUTS_AT_ONCE = 16;

/**
 * Orders sends within one millisecond: one count for the process, not per Outbox, since the
 * poller's and a replay's (POST /api/feed/{subscription}/replay) send side by side, and two
 * sends of one group in one millisecond with the same count would write one item over the other.
 */
let sends = 0;

export class Outbox implements DeliveryQueue {
  /** `sent` is told after each send (the worker of the same process wakes); `now` is epoch ms, moved by tests. */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly sent: () => void = () => undefined,
  ) {}

  async send(deliveries: ReadonlyArray<Delivery>): Promise<void> {
    // Numbered before any put starts: the puts run side by side, the order is the array's.
    const queue = deliveries.map((delivery) => ({
      delivery,
      order: `${String(this.now()).padStart(15, '0')}.${String(sends++ % 1_000_000).padStart(6, '0')}`,
    }));
    const putNext = async (): Promise<void> => {
      for (let next = queue.shift(); next; next = queue.shift()) await this.put(next.delivery, next.order);
    };
    await Promise.all(Array.from({ length: Math.min(PUTS_AT_ONCE, queue.length) }, putNext));
    if (deliveries.length > 0) this.sent();
  }

  /**
   * Kept as it is when already waiting: a stream record read again must not restart its attempts
   * nor be sent twice. Looked for in its group, which holds a few items while the endpoint is
   * healthy. Only a replay sending a change at the moment the poller's consumer sends it too
   * (scripts/local/feed-poller.ts) races this look; the change then waits twice and goes out twice
   * with one webhook-id, as at least once allows.
   */
  private async put(delivery: Delivery, order: string): Promise<void> {
    const group = groupOf(delivery);
    if (await this.waits(delivery, group)) return;
    await db().send(
      new PutCommand({
        TableName: settings().TABLE_NAME,
        Item: { ...keyOf(delivery.subscription, `${group}#${order}`), cid: delivery.change.change_id, c: packChange(delivery.change), n: 0, due: this.now() },
      }),
      inTime(),
    );
  }

  /** Whether the change waits in its group already. */
  private async waits(delivery: Delivery, group: string): Promise<boolean> {
    const query = inPartition(pendingPartition(delivery.subscription), `${group}#`);
    query.ExpressionAttributeNames['#cid'] = 'cid';
    query.ExpressionAttributeValues[':cid'] = delivery.change.change_id;
    for await (const page of queryPages({ ...query, FilterExpression: '#cid = :cid' })) if ((page.Count ?? 0) > 0) return true;
    return false;
  }
}

const groupOfKey = (sortKey: string) => sortKey.slice(0, sortKey.indexOf('#'));

function pendingOf(subscription: string, item: Record<string, unknown>): Pending {
  const failure = item.last === undefined ? {} : { failure: String(item.last) };
  const key = String(item[TABLE_KEY.sortKey]);
  return {
    delivery: { subscription, change: unpackChange(item.c as Uint8Array) },
    group: groupOfKey(key),
    key,
    attempts: Number(item.n),
    due: Number(item.due),
    ...failure,
  };
}

/** The first waiting delivery of each of the subscription's groups: the only one of its group that may be attempted. */
export async function* heads(subscription: string): AsyncGenerator<Pending> {
  let previous: string | undefined;
  for await (const page of queryPages(inPartition(pendingPartition(subscription)))) {
    for (const item of page.Items ?? []) {
      const group = groupOfKey(String(item[TABLE_KEY.sortKey]));
      if (group !== previous) yield pendingOf(subscription, item);
      previous = group;
    }
  }
}

/** The group's first waiting delivery, once the one before it is gone. */
export async function headOf(subscription: string, group: string): Promise<Pending | undefined> {
  for await (const { Items = [] } of queryPages({ ...inPartition(pendingPartition(subscription), `${group}#`), Limit: 1 })) {
    return Items[0] && pendingOf(subscription, Items[0]);
  }
}

/** Whether any delivery of the subscription waits. */
export async function anyWaiting(subscription: string): Promise<boolean> {
  for await (const page of queryPages({ ...inPartition(pendingPartition(subscription)), Limit: 1 })) return (page.Count ?? 0) > 0;
  return false;
}

/** How many deliveries of the subscription wait. */
export async function pendingCount(subscription: string): Promise<number> {
  let count = 0;
  for await (const page of queryPages({ ...inPartition(pendingPartition(subscription)), Select: 'COUNT' })) count += page.Count ?? 0;
  return count;
}

/** The attempt failed and another is due at `due`. */
export async function postpone(pending: Pending, due: number, failure: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: settings().TABLE_NAME,
      Key: keyOf(pending.delivery.subscription, pending.key),
      UpdateExpression: 'SET n = :n, due = :due, #last = :last',
      ExpressionAttributeNames: { '#last': 'last' },
      ExpressionAttributeValues: { ':n': pending.attempts + 1, ':due': due, ':last': failure },
    }),
    inTime(),
  );
}

/** Delivered, or a dead letter now: the group's next may go. */
export async function release(pending: Pending): Promise<void> {
  await db().send(new DeleteCommand({ TableName: settings().TABLE_NAME, Key: keyOf(pending.delivery.subscription, pending.key) }), inTime());
}
