import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import type { FilterNode } from './filter/ast';
import { ExpressionBuilder } from './filter/expression';
import { db } from './client';
import { filterExpression, type AccessPlan } from './plan';

export type Item = Record<string, unknown>;
export type Key = Record<string, string>;
/** Where a shard's reading goes on: undefined = from the start, null = nothing left. */
export type Position = Key | null | undefined;

export interface ReadOptions {
  plan: AccessPlan;
  filter: FilterNode;
  consistent?: boolean;
}

function queryInput(options: ReadOptions, shard: number): QueryCommandInput {
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

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

function keyOf(plan: AccessPlan, item: Item): Key {
  return Object.fromEntries(plan.keyAttributes.map((a) => [a, item[a] as string]));
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
    const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: next, Limit: limit }));
    items.push(...((page.Items ?? []) as Item[]));
    scanned += page.ScannedCount ?? 0;
    next = page.LastEvaluatedKey as Key | undefined;
    step *= 2;
  } while (next && items.length < wanted && scanned < budget);
  return { items, next: next ?? null, scanned };
}

export interface Page {
  items: Item[];
  positions: Position[];
  scanned: number;
}

/**
 * One page in the plan's order across all shards. Each shard is read from its own position;
 * an item is only answered once no unread item of any other shard can sort before it, so
 * pages stay in order and a cursor resumes exactly where the page ended.
 */
export async function readPage(options: ReadOptions, limit: number, positions: Position[], budget: number): Promise<Page> {
  const { plan } = options;
  const perShardBudget = Math.max(1, Math.floor(budget / plan.shards.length));
  const reads = await Promise.all(
    plan.shards.map((shard, i) =>
      positions[i] === null
        ? Promise.resolve<ShardRead>({ items: [], next: null, scanned: 0 })
        : readShard(options, shard, positions[i] ?? undefined, limit, perShardBudget),
    ),
  );
  const direction = plan.forward ? 1 : -1;
  const order = (a: string, b: string) => direction * utf8Order(a, b);
  const sortValue = (item: Item | Key) => item[plan.sortAttribute] as string;
  // The furthest point every shard has been read to; nothing past it can be answered yet.
  const frontiers = reads.filter((r) => r.next !== null).map((r) => sortValue(r.next!));
  const frontier = frontiers.sort(order)[0];

  const heads = reads.map(() => 0);
  const items: Item[] = [];
  while (items.length < limit) {
    let best = -1;
    reads.forEach((read, i) => {
      const head = read.items[heads[i]];
      if (head && (best < 0 || order(sortValue(head), sortValue(reads[best].items[heads[best]])) < 0)) best = i;
    });
    if (best < 0) break;
    const candidate = reads[best].items[heads[best]];
    if (frontier !== undefined && order(sortValue(candidate), frontier) > 0) break;
    items.push(candidate);
    heads[best] += 1;
  }
  const nextPositions = reads.map((read, i): Position => {
    if (heads[i] === read.items.length) return read.next;
    if (heads[i] === 0) return positions[i];
    return keyOf(plan, read.items[heads[i] - 1]);
  });
  return { items, positions: nextPositions, scanned: reads.reduce((n, r) => n + r.scanned, 0) };
}

/** Every matching item, shards in parallel; stops early once more than `atMost` matched. */
export async function readAll(options: ReadOptions, atMost: number): Promise<{ items: Item[]; truncated: boolean }> {
  const perShard = await Promise.all(
    options.plan.shards.map(async (shard) => {
      const input = queryInput(options, shard);
      const items: Item[] = [];
      let next: Key | undefined;
      do {
        const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: next }));
        items.push(...((page.Items ?? []) as Item[]));
        next = page.LastEvaluatedKey as Key | undefined;
      } while (next && items.length <= atMost);
      return items;
    }),
  );
  const items = perShard.flat();
  return { items: items.slice(0, atMost + 1), truncated: items.length > atMost };
}

/** Exact count: every page of every shard, with Select COUNT so no item data is returned. */
export async function countAll(options: ReadOptions): Promise<{ count: number; scanned: number }> {
  const perShard = await Promise.all(
    options.plan.shards.map(async (shard) => {
      const input: QueryCommandInput = { ...queryInput(options, shard), Select: 'COUNT' };
      let count = 0;
      let scanned = 0;
      let next: Key | undefined;
      do {
        const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: next }));
        count += page.Count ?? 0;
        scanned += page.ScannedCount ?? 0;
        next = page.LastEvaluatedKey as Key | undefined;
      } while (next);
      return { count, scanned };
    }),
  );
  return perShard.reduce((a, b) => ({ count: a.count + b.count, scanned: a.scanned + b.scanned }), { count: 0, scanned: 0 });
}
