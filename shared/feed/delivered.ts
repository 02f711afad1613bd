import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { db } from '../store/client';
import { TABLE_KEY } from '../store/table';
import type { Delivery } from './queue';

/**
 * The last delivery each subscription's endpoint acknowledged, for GET /api/feed: one small item
 * per subscription, under a partition no model can have, overwritten by every delivery.
 */
const keyOf = (subscription: string) => ({ [TABLE_KEY.partitionKey]: '_feed_delivered', [TABLE_KEY.sortKey]: subscription });

export interface LastDelivered {
  change_id: string;
  /** When the endpoint acknowledged it, ISO 8601. */
  at: string;
}

export async function noteDelivered({ subscription, change }: Delivery, at: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: settings().TABLE_NAME,
      Key: keyOf(subscription),
      UpdateExpression: 'SET #id = :id, #at = :at',
      // AT is one of DynamoDB's reserved words.
      ExpressionAttributeNames: { '#id': 'change_id', '#at': 'at' },
      ExpressionAttributeValues: { ':id': change.change_id, ':at': at },
    }),
    inTime(),
  );
}

export async function lastDelivered(subscription: string): Promise<LastDelivered | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: keyOf(subscription), ConsistentRead: true }), inTime());
  return Item ? { change_id: String(Item.change_id), at: String(Item.at) } : undefined;
}
