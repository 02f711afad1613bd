import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../config';
import { inTime } from '../../invocation';
import type { Model } from '../../models/model';
import { db } from '../client';
import { partitionKey } from '../keys';
import type { Key } from '../read/query';
import { TABLE_KEY, TTL_ATTRIBUTE } from '../table';
import { isConditionFailure } from '../write/write-token';
import { epochSeconds } from './ttl';

/** Where a sweep of one model stands: the shard, and the key after which it reads on. */
export interface SweepPosition {
  shard: number;
  after?: Key;
}

export interface SweepStep {
  /** Where the next step goes on; undefined once every shard was read to its end (the pass is done). */
  next?: SweepPosition;
  /** Items DynamoDB evaluated: what the step cost the engine. */
  scanned: number;
  /** Expired records this step deleted. */
  deleted: number;
}

/**
 * One bounded step of the local sweeper (scripts/local/sweeper.ts), which stands in for
 * DynamoDB's TTL on the local engines: reads at most `budget` items of the model's partitions
 * from `from` on, keys only of those expired at `now`, and deletes each on the condition that it
 * is still expired, so a record another request created in its place since is never touched.
 * The delete's REMOVE tells the change feed an expiry (shared/feed/from-stream.ts), as the TTL's
 * own deletes do in AWS.
 */
export async function sweepStep(model: Model, from: SweepPosition, budget: number, now = epochSeconds()): Promise<SweepStep> {
  const pk = partitionKey(model, from.shard);
  const page = await db().send(
    new QueryCommand({
      TableName: settings().TABLE_NAME,
      KeyConditionExpression: '#pk = :pk',
      FilterExpression: '#ttl <= :now',
      ProjectionExpression: '#pk, #sk',
      ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, '#sk': TABLE_KEY.sortKey, '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':pk': pk, ':now': now },
      ExclusiveStartKey: from.after,
      Limit: budget,
    }),
    inTime(),
  );
  let deleted = 0;
  for (const key of (page.Items ?? []) as Key[]) {
    try {
      await db().send(
        new DeleteCommand({
          TableName: settings().TABLE_NAME,
          Key: { [TABLE_KEY.partitionKey]: key[TABLE_KEY.partitionKey], [TABLE_KEY.sortKey]: key[TABLE_KEY.sortKey] },
          ConditionExpression: '#ttl <= :now',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': now },
        }),
        inTime(),
      );
      deleted += 1;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  const after = page.LastEvaluatedKey as Key | undefined;
  const next = after ? { shard: from.shard, after } : from.shard + 1 < model.shards ? { shard: from.shard + 1 } : undefined;
  return { next, scanned: page.ScannedCount ?? 0, deleted };
}
