import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { settings } from '../../shared/config';
import { defineModel, type Model } from '../../shared/models/define';
import { db } from '../../shared/store/client';
import { mapPool } from '../../shared/store/write/pool';
import { storedItem } from '../../shared/store/records';

/**
 * A bench-only model shaped like `reaction` (two indexed fields), so the benchmarks can pick
 * their shard count and keep their data apart from each other.
 */
export const benchModel = (name: string, shards: number): Model =>
  defineModel({
    name,
    description: 'benchmark data',
    schema: z.strictObject({ user_id: z.number(), user_name: z.string().optional(), content: z.string() }),
    indexed: ['user_id', 'content'],
    shards,
  });

/**
 * The bench model of many tenants, each record's named by `org`: with the tenant rule
 * (docs/security.md) a tenant's reads lie within its own key range; without it (`keyed` false)
 * `org` is a field like any other, which only a filter can pick.
 */
export const benchTenantModel = (name: string, keyed = true): Model =>
  defineModel({
    name,
    description: 'benchmark data of many tenants',
    schema: z.strictObject({ org: z.string(), user_id: z.number(), user_name: z.string().optional(), content: z.string() }),
    indexed: ['user_id', 'content'],
    ...(keyed ? { tenant: { field: 'org', claim: 'tenant' } } : {}),
  });

export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);

/** Record `i`: ids sort by i; content takes 10 values (10% each), user_name 100 (1% each). */
export const benchId = (i: number): string => `r${String(i).padStart(8, '0')}`;
export const benchData = (i: number) => ({ user_id: i, user_name: `user${i % 100}`, content: `c${i % 10}` });

const BATCH = 25;

/**
 * Writes the records numbered `indices` exactly as the store stores them, with BatchWriteItem (six
 * times faster than the API's conditional puts on this engine; seeding is not what is measured).
 */
export async function seed(model: Model, indices: ReadonlyArray<number>, dataOf: (i: number) => Record<string, unknown> = benchData): Promise<void> {
  const now = new Date().toISOString();
  const batches: number[][] = [];
  for (let start = 0; start < indices.length; start += BATCH) batches.push(indices.slice(start, start + BATCH));
  const results = await mapPool(batches, 4, async (batch) => {
    let requests = batch.map((i) => ({ PutRequest: { Item: storedItem(model, { id: benchId(i), data: dataOf(i) }, now) } }));
    while (requests.length > 0) {
      const { UnprocessedItems } = await db().send(new BatchWriteCommand({ RequestItems: { [settings().TABLE_NAME]: requests } }));
      requests = (UnprocessedItems?.[settings().TABLE_NAME] ?? []) as typeof requests;
    }
  });
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}
