import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../config';
import type { FilterNode } from '../filter/ast';
import { ExpressionBuilder } from '../filter/expression';
import { db } from '../client';
import { utf8Order } from '../utf8-order';
import type { Model } from '../../models/model';
import { partitionKey } from '../keys';
import { filterExpression, type AccessPlan } from './plan';
import { inTime } from '../../invocation';
import { TABLE_KEY } from '../table';

export type Item = Record<string, unknown>;
export type Key = Record<string, string>;

export interface ReadOptions {
  plan: AccessPlan;
  filter: FilterNode;
  consistent?: boolean;
}

/** The Query one shard is read with; exported so that a test can send it to two engines. */
export function queryInput(options: ReadOptions, shard: number): QueryCommandInput {
  const { plan, filter, consistent } = options;
  const x = new ExpressionBuilder();
  const keyCondition = plan.keyCondition(shard, x);
  const filterText = filterExpression(plan, filter, x);
  return {
    TableName: settings().TABLE_NAME,
    IndexName: plan.indexName,
    KeyConditionExpression: keyCondition,
    FilterExpression: filterText,
    ScanIndexForward: plan.forward,
    // Index reads cannot be strongly consistent; DynamoDB refuses the flag there.
    ConsistentRead: plan.indexName ? undefined : consistent,
    ...x.attributes(),
  };
}

interface ShardRead {
  items: Item[];
  /** The LastEvaluatedKey after the last page read, null when the shard is exhausted. */
  next: Key | null;
  scanned: number;
}

/** Reads one shard from `start` until it has `wanted` matches, runs out, or spends `budget` evaluated items. */
async function readShard(options: ReadOptions, shard: number, start: Key | undefined, wanted: number, budget: number): Promise<ShardRead> {
  const input = queryInput(options, shard);
  const items: Item[] = [];
  let next: Key | undefined = start;
  let scanned = 0;
  let step = options.plan.exact ? wanted : Math.max(wanted * 2, 100);
  do {
    const limit = Math.min(step, budget - scanned, options.plan.exact ? wanted - items.length : Infinity);
    const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: next, Limit: limit }), inTime());
    items.push(...((page.Items ?? []) as Item[]));
    scanned += page.ScannedCount ?? 0;
    next = page.LastEvaluatedKey as Key | undefined;
    step *= 2;
  } while (next && items.length < wanted && scanned < budget);
  return { items, next: next ?? null, scanned };
}

export interface Page {
  items: Item[];
  /**
   * The sort key (the plan's sortAttribute) up to which this page has answered every match of
   * every shard, or null once every shard was read to its end and all of it answered.
   */
  after: string | null;
  scanned: number;
}

/**
 * Merges the shards' buffers in the plan's order, answering an item only while no unread item
 * of another shard can sort before it: the furthest point every unfinished shard has been read
 * to (its LastEvaluatedKey) is the frontier. Returns how many items each shard gave, and the
 * unfinished shard whose frontier stopped the merge, if one did.
 */
function merge(plan: AccessPlan, shards: ShardRead[], limit: number): { items: Item[]; heads: number[]; blocker?: number } {
  const direction = plan.forward ? 1 : -1;
  const order = (a: string, b: string) => direction * utf8Order(a, b);
  const sortValue = (item: Item | Key) => item[plan.sortAttribute] as string;
  let blocker: number | undefined;
  shards.forEach((state, i) => {
    if (state.next !== null && (blocker === undefined || order(sortValue(state.next), sortValue(shards[blocker].next!)) < 0)) blocker = i;
  });
  const frontier = blocker === undefined ? undefined : sortValue(shards[blocker].next!);
  const heads = shards.map(() => 0);
  const items: Item[] = [];
  while (items.length < limit) {
    let best = -1;
    shards.forEach((state, i) => {
      const head = state.items[heads[i]];
      if (head && (best < 0 || order(sortValue(head), sortValue(shards[best].items[heads[best]])) < 0)) best = i;
    });
    const candidate = best < 0 ? undefined : shards[best].items[heads[best]];
    if (!candidate || (frontier !== undefined && order(sortValue(candidate), frontier) > 0)) return { items, heads, blocker };
    items.push(candidate);
    heads[best] += 1;
  }
  return { items, heads, blocker };
}

/**
 * One page in the plan's order across all shards, after the sort key `after` (from the start
 * when undefined). Each shard first reads its share of the page; while the merge is held back
 * by a shard that has more to read, that shard reads on. So a page of 100 over 8 shards reads
 * about 100 items, not 800.
 *
 * The next page resumes every shard from one position, not from where each shard stopped: a
 * shard already read past the page's end, or read to its end, may since have been given a
 * record that sorts after the page, and only a common position finds it (issue 19). That
 * position is the last record answered, or, when the read budget ran out first, the frontier
 * every shard has been read to.
 */
export async function readPage(options: ReadOptions, limit: number, after: string | undefined, budget: number): Promise<Page> {
  const { plan } = options;
  const perShardBudget = Math.max(1, Math.floor(budget / plan.shards.length));
  const share = Math.ceil(limit / plan.shards.length);
  const shards = await Promise.all(
    plan.shards.map((shard) => readShard(options, shard, after === undefined ? undefined : plan.startKey(shard, after), share, perShardBudget)),
  );
  const scanned = () => shards.reduce((n, state) => n + state.scanned, 0);
  for (;;) {
    const { items, heads, blocker } = merge(plan, shards, limit);
    const held = blocker === undefined ? undefined : shards[blocker];
    if (!held && shards.every((state, i) => heads[i] === state.items.length)) return { items, after: null, scanned: scanned() };
    if (!held || items.length === limit) return { items, after: items[items.length - 1][plan.sortAttribute] as string, scanned: scanned() };
    // Short of the limit: the shard that holds the merge back at the frontier reads on, or the page ends there.
    if (held.scanned >= perShardBudget) return { items, after: held.next![plan.sortAttribute], scanned: scanned() };
    const more = await readShard(options, plan.shards[blocker!], held.next!, Math.max(share, limit - items.length), perShardBudget - held.scanned);
    held.items.push(...more.items);
    held.next = more.next;
    held.scanned += more.scanned;
  }
}

/** Every matching item, shards in parallel; stops early once more than `atMost` matched. */
export async function readAll(options: ReadOptions, atMost: number): Promise<{ items: Item[]; truncated: boolean }> {
  const perShard = await Promise.all(
    options.plan.shards.map(async (shard) => {
      const input = queryInput(options, shard);
      const items: Item[] = [];
      let next: Key | undefined;
      do {
        const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: next }), inTime());
        items.push(...((page.Items ?? []) as Item[]));
        next = page.LastEvaluatedKey as Key | undefined;
      } while (next && items.length <= atMost);
      return items;
    }),
  );
  const items = perShard.flat();
  return { items: items.slice(0, atMost + 1), truncated: items.length > atMost };
}

/**
 * One shard's matches, counted with Select COUNT so no item data is returned: every page, or
 * only until more than `atMost` are counted (each page then asks for no more than that).
 */
export async function countShard(options: ReadOptions, shard: number, atMost = Number.POSITIVE_INFINITY): Promise<{ count: number; scanned: number }> {
  const input: QueryCommandInput = { ...queryInput(options, shard), Select: 'COUNT' };
  let count = 0;
  let scanned = 0;
  let next: Key | undefined;
  do {
    // A Limit caps what is evaluated, not what matches: only an exact plan's pages stop at the count wanted.
    const limit = Number.isFinite(atMost) && options.plan.exact ? atMost + 1 - count : undefined;
    const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: next, Limit: limit }), inTime());
    count += page.Count ?? 0;
    scanned += page.ScannedCount ?? 0;
    next = page.LastEvaluatedKey as Key | undefined;
  } while (next && count <= atMost);
  return { count, scanned };
}

/** Exact count: every page of every shard, with Select COUNT so no item data is returned. */
export async function countAll(options: ReadOptions): Promise<{ count: number; scanned: number }> {
  const perShard = await Promise.all(options.plan.shards.map((shard) => countShard(options, shard)));
  return perShard.reduce((a, b) => ({ count: a.count + b.count, scanned: a.scanned + b.scanned }), { count: 0, scanned: 0 });
}

/**
 * One page of a shard's records in id order, after the id `after` when given: the model's own
 * partition, read whole, for the layout probe, the index build and models:check.
 */
export async function shardPage(
  model: Model,
  shard: number,
  { after, limit, consistent = true }: { after?: string; limit?: number; consistent?: boolean } = {},
): Promise<{ items: Item[]; last?: string }> {
  const pk = partitionKey(model, shard);
  const page = await db().send(
    new QueryCommand({
      TableName: settings().TABLE_NAME,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
      ExpressionAttributeValues: { ':pk': pk },
      ExclusiveStartKey: after === undefined ? undefined : { [TABLE_KEY.partitionKey]: pk, [TABLE_KEY.sortKey]: after },
      ConsistentRead: consistent,
      Limit: limit,
    }),
    inTime(),
  );
  return { items: (page.Items ?? []) as Item[], last: page.LastEvaluatedKey?.[TABLE_KEY.sortKey] as string | undefined };
}
