import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/store/client';
import { settings } from '../../shared/config';
import type { Model } from '../../shared/models/define';

/** Every item of a model as stored in the table, read directly (not through the API). */
export async function storedItems(model: Pick<Model, 'name' | 'shards'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let shard = 0; shard < model.shards; shard++) {
    let next: Record<string, unknown> | undefined;
    do {
      const page = await db().send(
        new QueryCommand({
          TableName: settings().TABLE_NAME,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': `${model.name}#${shard}` },
          ConsistentRead: true,
          ExclusiveStartKey: next,
        }),
      );
      items.push(...(page.Items ?? []));
      next = page.LastEvaluatedKey;
    } while (next);
  }
  return items.sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
}
