import { createHash } from 'node:crypto';
import { isExactNumber, numberText } from '../json/exact-json';
import { sortableDecimal } from '../json/decimal';
import type { AggregateDefinition, Model } from '../models/model';
import { shardOf } from '../store/keys';
import { TABLE_KEY } from '../store/table';

/*
 * Where an aggregate's items lie in the one table. Two kinds, both outside every record's
 * partition (`<model>#<shard>`), so the change feed never reads them as records:
 * - a counter per group: `pk = <model>#aggregate#<name>`, `sk = <key space><group key>`; one
 *   Query of the partition lists an aggregate's groups, in group key order, and equality on a
 *   leading run of the group fields is a `begins_with` on the sort key;
 * - a contribution per record: `pk = <model>#aggregated#<name>#<shard>`, `sk` the record's own sort
 *   key; it says what the record adds to which group, and up to which change, so that applying a
 *   change twice, or a stale state after a newer one, changes no counter.
 */

/** A group value in a key: a string, a number or a boolean, or none for a missing field. */
export type GroupValue = string | number | boolean | null;

/** Values longer than this (in the key's UTF-8) are keyed by their digest: keys stay within DynamoDB's 1,024-byte sort key with four fields and a tenant. */
const MAX_KEYED_BYTES = 160;

/** Ends each group value's part of a key: no part holds it, so one field's value never runs into the next. */
const PART_END = '\u0000';

/**
 * One group value in a key: missing `!`, numbers `0`-`2` (in numeric order), strings `"` (in UTF-8
 * order), false `f`, true `t`, and a long string `#` and its digest. Exact: two values share a part
 * only when they are equal (numbers by value: 1 and 1.0 are one group).
 */
export function groupPart(value: unknown): string {
  if (value === undefined || value === null) return '!';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (isExactNumber(value)) return sortableDecimal(numberText(value));
  if (typeof value === 'string') {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 and U+0001 are the escape's own alphabet
    const part = `"${value.replace(/[\u0000\u0001]/g, (c) => (c === PART_END ? '\u0001\u0001' : '\u0001\u0002'))}`;
    if (Buffer.byteLength(part, 'utf8') <= MAX_KEYED_BYTES) return part;
    return `#${createHash('sha256').update(value, 'utf8').digest('base64url')}`;
  }
  throw new TypeError(`a group value is a string, a number or a boolean, not ${typeof value}`);
}

/** The group key of values in the aggregate's `group_by` order: each part, then PART_END. */
export const groupKey = (values: ReadonlyArray<unknown>): string => values.map((v) => `${groupPart(v)}${PART_END}`).join('');

/** The values of a record's data that name its group, in `group_by` order. */
export const groupValuesOf = (definition: AggregateDefinition, data: Record<string, unknown>): unknown[] => definition.group_by.map((field) => data[field]);

export const counterPartition = (model: Model, aggregate: string): string => `${model.name}#aggregate#${aggregate}`;

/**
 * The sort key of the one group of an aggregate without group fields, in a model without a tenant
 * rule, where space and group key are both '': DynamoDB refuses an empty key.
 */
export const ONLY_GROUP = '=';

/** The counter item's key of one group in the key space `space` (the tenant's, shared/store/keys.ts keySpace; '' without a tenant rule). */
export const counterKey = (model: Model, aggregate: string, values: ReadonlyArray<unknown>, space = ''): Record<string, string> => ({
  [TABLE_KEY.partitionKey]: counterPartition(model, aggregate),
  [TABLE_KEY.sortKey]: `${space}${groupKey(values)}` || ONLY_GROUP,
});

/** The contribution item's key of the record whose item has sort key `recordSortKey`. */
export const contributionKey = (model: Model, aggregate: string, id: string, recordSortKey: string): Record<string, string> => ({
  [TABLE_KEY.partitionKey]: `${model.name}#aggregated#${aggregate}#${shardOf(model, id)}`,
  [TABLE_KEY.sortKey]: recordSortKey,
});

/**
 * Orders the states of one record id: by creation (a record deleted and created again under the
 * same id starts at version 1 again), then version, then a delete after the state it deleted. A
 * contribution is replaced only by a state that sorts after the one it holds.
 */
export const stateOrder = (createdAt: string, version: number, deleted: boolean): string =>
  `${createdAt}#${String(version).padStart(12, '0')}#${deleted ? 1 : 0}`;
