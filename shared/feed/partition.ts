import { QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { db } from '../store/client';
import { TABLE_KEY } from '../store/table';

type Query = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'ConsistentRead'>;

/** One of the feed's partitions (the outbox's, the dead letters'), or its sort keys starting with `prefix`. */
export function inPartition(partition: string, prefix?: string): Query & Required<Pick<Query, 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>> {
  return prefix === undefined
    ? {
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
        ExpressionAttributeValues: { ':pk': partition },
      }
    : {
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, '#sk': TABLE_KEY.sortKey },
        ExpressionAttributeValues: { ':pk': partition, ':prefix': prefix },
      };
}

/** Every page of a query, in key order, read consistently: what the worker just wrote is what it reads. */
export async function* queryPages(query: Query): AsyncGenerator<QueryCommandOutput> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ TableName: settings().TABLE_NAME, ConsistentRead: true, ...query, ExclusiveStartKey: start }), inTime());
    yield page;
    start = page.LastEvaluatedKey;
  } while (start);
}
