import { queryInput, type ReadOptions } from '../../shared/store/read/query';

/** The Query a read sends to one shard (the plan's first by default), placeholders resolved so a test reads it as text. */
export function readableQuery(options: ReadOptions, shard = options.plan.shards[0]) {
  const input = queryInput(options, shard);
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const readable = (text?: string) => text?.replace(/#n\d+/g, (n) => names[n]).replace(/:v\d+/g, (v) => JSON.stringify(values[v]));
  return { ...input, KeyConditionExpression: readable(input.KeyConditionExpression), FilterExpression: readable(input.FilterExpression) };
}
