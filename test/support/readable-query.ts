import { queryInput, type ReadOptions } from '../../shared/store/read/query';

/** An expression with its placeholders resolved, to read as DynamoDB evaluates it. */
export function readableExpression(text: string | undefined, names: Record<string, string> = {}, values: Record<string, unknown> = {}): string {
  return (text ?? '').replace(/#n\d+/g, (n) => names[n]).replace(/:v\d+/g, (v) => JSON.stringify(values[v]));
}

/** The Query a read sends to one shard (the plan's first by default), placeholders resolved so a test reads it as text. */
export function readableQuery(options: ReadOptions, shard = options.plan.shards[0]) {
  const input = queryInput(options, shard);
  const readable = (text?: string) =>
    text === undefined ? undefined : readableExpression(text, input.ExpressionAttributeNames, input.ExpressionAttributeValues);
  return { ...input, KeyConditionExpression: readable(input.KeyConditionExpression), FilterExpression: readable(input.FilterExpression) };
}
