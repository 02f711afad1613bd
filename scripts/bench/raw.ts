import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../shared/config';
import { LIMITS } from '../../shared/limits';
import type { Model } from '../../shared/models/define';
import { db } from '../../shared/store/client';
import { indexPartitionKey, indexSlotOf, partitionKey, shardOf, sortableValue, VALUE_END } from '../../shared/store/keys';
import { mapPool } from '../../shared/store/write/pool';

type Item = Record<string, unknown>;

/** Pages of one query until it runs out or `enough` items matched. */
async function queryLoop(input: QueryCommandInput, enough = Infinity): Promise<{ items: Item[]; count: number }> {
  const items: Item[] = [];
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && count < enough);
  return { items, count };
}

/**
 * The same reads and writes the store makes, hand-written with plain document-client calls and
 * no validation, planning or merging: the engine's own cost for the job, to set the store against.
 * Every shard is read in parallel, as the store does.
 */
export function rawCalls(model: Model) {
  const TableName = settings().TABLE_NAME;
  const shards = Array.from({ length: model.shards }, (_, s) => s);
  const key = (id: string) => ({ pk: partitionKey(model, shardOf(model, id)), sk: id });
  /** The query of one shard that finds records whose `field` equals `value`: by index when indexed. */
  const where = (shard: number, field: string, value: unknown): QueryCommandInput => {
    const slot = indexSlotOf(model, field);
    if (slot) {
      return {
        TableName,
        IndexName: slot.indexName,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :v)',
        ExpressionAttributeNames: { '#pk': slot.partitionKey, '#sk': slot.sortKey },
        ExpressionAttributeValues: { ':pk': indexPartitionKey(model, field, shard), ':v': sortableValue(value) + VALUE_END },
      };
    }
    return {
      TableName,
      KeyConditionExpression: '#pk = :pk',
      FilterExpression: '#d.#f = :v',
      ExpressionAttributeNames: { '#pk': 'pk', '#d': 'd', '#f': field },
      ExpressionAttributeValues: { ':pk': partitionKey(model, shard), ':v': value },
    };
  };
  const partition = (shard: number): QueryCommandInput => ({
    TableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': partitionKey(model, shard) },
  });
  const matching = async (field: string, value: unknown) => (await Promise.all(shards.map((s) => queryLoop(where(s, field, value))))).flatMap((r) => r.items);
  return {
    getById: (id: string) => db().send(new GetCommand({ TableName, Key: key(id) })),
    getWhere: (field: string, value: unknown) => Promise.all(shards.map((s) => db().send(new QueryCommand({ ...where(s, field, value), Limit: 1 })))),
    listPage: (limit: number) => Promise.all(shards.map((s) => db().send(new QueryCommand({ ...partition(s), Limit: limit })))),
    listWhere: (field: string, value: unknown, limit: number) => Promise.all(shards.map((s) => queryLoop(where(s, field, value), limit))),
    count: () => Promise.all(shards.map((s) => queryLoop({ ...partition(s), Select: 'COUNT' }))),
    /** One field of one record by id, as a careful hand would write it: in place, only if the record exists. */
    updateById: (id: string, set: { field: string; value: unknown }) =>
      db().send(
        new UpdateCommand({
          TableName,
          Key: key(id),
          UpdateExpression: 'SET #d.#f = :v, #ver = #ver + :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#d': 'd', '#f': set.field, '#ver': '_version' },
          ExpressionAttributeValues: { ':v': set.value, ':one': 1 },
        }),
      ),
    updateWhere: async (field: string, value: unknown, set: { field: string; value: unknown }) => {
      const items = await matching(field, value);
      await mapPool(items, LIMITS.writeConcurrency, (item) =>
        db().send(
          new UpdateCommand({
            TableName,
            Key: key(item.id as string),
            UpdateExpression: 'SET #d.#f = :v, #ver = #ver + :one',
            ExpressionAttributeNames: { '#d': 'd', '#f': set.field, '#ver': '_version' },
            ExpressionAttributeValues: { ':v': set.value, ':one': 1 },
          }),
        ),
      );
    },
    deleteWhere: async (field: string, value: unknown) => {
      const items = await matching(field, value);
      await mapPool(items, LIMITS.writeConcurrency, (item) => db().send(new DeleteCommand({ TableName, Key: key(item.id as string) })));
    },
  };
}
