import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import type { ExactNumber } from '../json/exact-json';
import { LIMITS } from '../limits';
import type { AggregateDefinition, Model } from '../models/model';
import { db } from '../store/client';
import { keySpace } from '../store/keys';
import { TABLE_KEY } from '../store/table';
import { COUNT_ATTRIBUTE, GROUP_ATTRIBUTE, sumAttribute } from './items';
import { counterKey, counterPartition, groupKey, groupPart } from './keys';

/** One group as answered: its values, its count where the aggregate counts, its exact sums. */
export interface Group {
  key: Record<string, unknown>;
  count?: number;
  sum?: Record<string, ExactNumber>;
}

export interface GroupsPage {
  groups: Group[];
  /** The counter sort key the page answered up to, when there is more to read. */
  after?: string;
  /** Counter items read. */
  scanned: number;
}

type Item = Record<string, unknown>;

/** Records counted in a counter item: 0 for an empty group (its records left it), which is never answered. */
const countOf = (item: Item): number => Number(item[COUNT_ATTRIBUTE] ?? 0);

function groupOf(definition: AggregateDefinition, item: Item): Group {
  const held = (item[GROUP_ATTRIBUTE] ?? {}) as Record<string, unknown>;
  const key = Object.fromEntries(definition.group_by.map((field) => [field, held[field] ?? null]));
  const sums = definition.sum ?? [];
  return {
    key,
    ...(definition.count ? { count: countOf(item) } : {}),
    ...(sums.length > 0 ? { sum: Object.fromEntries(sums.map((field) => [field, (item[sumAttribute(field)] ?? 0) as ExactNumber])) } : {}),
  };
}

/**
 * A page of the aggregate's non-empty groups in the caller's key space (`model` as the caller
 * reaches it: shared/store/reach.ts), in group key order, after the counter sort key `after`.
 * `equal` holds the group fields asked for by equality: those leading `group_by` narrow the
 * Query to the sort keys that begin with their group key; the rest are compared on each counter
 * read. Stops at `limit` groups, or with a position once LIMITS.maxScannedPerRequest counters were read.
 */
export async function readGroups(
  model: Model,
  name: string,
  equal: ReadonlyMap<string, unknown>,
  { limit, after, consistent }: { limit: number; after?: string; consistent?: boolean },
): Promise<GroupsPage> {
  const definition = model.aggregates[name];
  const leading: unknown[] = [];
  for (const field of definition.group_by) {
    if (!equal.has(field)) break;
    leading.push(equal.get(field));
  }
  const rest = [...equal].filter(([field]) => definition.group_by.indexOf(field) >= leading.length);
  const prefix = `${keySpace(model)}${leading.length > 0 ? groupKey(leading) : ''}`;
  const input = {
    TableName: settings().TABLE_NAME,
    KeyConditionExpression: prefix === '' ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, ...(prefix === '' ? {} : { '#sk': TABLE_KEY.sortKey }) },
    ExpressionAttributeValues: { ':pk': counterPartition(model, name), ...(prefix === '' ? {} : { ':prefix': prefix }) },
    ConsistentRead: consistent,
  };
  const groups: Group[] = [];
  let scanned = 0;
  let position = after;
  do {
    const page = await db().send(
      new QueryCommand({
        ...input,
        ExclusiveStartKey:
          position === undefined ? undefined : { [TABLE_KEY.partitionKey]: input.ExpressionAttributeValues[':pk'], [TABLE_KEY.sortKey]: position },
        Limit: Math.min(Math.max(2 * (limit - groups.length), 25), LIMITS.maxScannedPerRequest - scanned),
      }),
      inTime(),
    );
    position = page.LastEvaluatedKey?.[TABLE_KEY.sortKey] as string | undefined;
    for (const item of (page.Items ?? []) as Item[]) {
      scanned += 1;
      const held = (item[GROUP_ATTRIBUTE] ?? {}) as Record<string, unknown>;
      if (countOf(item) <= 0 || rest.some(([field, value]) => groupPart(held[field]) !== groupPart(value))) continue;
      groups.push(groupOf(definition, item));
      if (groups.length === limit) {
        const last = item[TABLE_KEY.sortKey] as string;
        // The page ends at this group; whether any follows, only the next read can tell, unless this was the Query's last item.
        return { groups, scanned, ...(position === undefined && item === page.Items?.at(-1) ? {} : { after: last }) };
      }
    }
  } while (position !== undefined && scanned < LIMITS.maxScannedPerRequest);
  return { groups, scanned, ...(position === undefined ? {} : { after: position }) };
}

/**
 * The count of one group of an aggregate that counts, `values` in `group_by` order, in the
 * caller's key space: one GetItem of its counter (absent: no record ever joined the group).
 */
export async function groupCount(model: Model, name: string, values: ReadonlyArray<unknown>): Promise<{ count: number; scanned: number }> {
  const { Item: item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: counterKey(model, name, values, keySpace(model)) }), inTime());
  return { count: item ? countOf(item) : 0, scanned: item ? 1 : 0 };
}
