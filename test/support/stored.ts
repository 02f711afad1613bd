import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/store/client';
import { settings } from '../../shared/config';
import type { Model } from '../../shared/models/define';

/** Every item of a model as stored in the table (this file's, or `table`), read directly (not through the API). */
export async function storedItems(model: Pick<Model, 'name' | 'shards'>, table = settings().TABLE_NAME): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let shard = 0; shard < model.shards; shard++) {
    let next: Record<string, unknown> | undefined;
    do {
      const page = await db().send(
        new QueryCommand({
          TableName: table,
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

/** Removes every item of a model from the table directly, so a test starts from none. */
export async function removeAll(model: Pick<Model, 'name' | 'shards'>): Promise<void> {
  const keys = (await storedItems(model)).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
  for (let i = 0; i < keys.length; i += 25) {
    const result = await db().send(new BatchWriteCommand({ RequestItems: { [settings().TABLE_NAME]: keys.slice(i, i + 25) } }));
    if (Object.keys(result.UnprocessedItems ?? {}).length > 0) throw new Error('removeAll: the engine left items unprocessed');
  }
}
