import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { counterPartition } from '../../shared/aggregates/keys';
import type { Model } from '../../shared/models/model';
import { TABLE_KEY } from '../../shared/store/table';

/** Every counter item of an aggregate as the table holds it, read consistently, in group key order. */
export async function counterItems(client: DynamoDBDocumentClient, tableName: string, model: Model, aggregate: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
        ExpressionAttributeValues: { ':pk': counterPartition(model, aggregate) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
