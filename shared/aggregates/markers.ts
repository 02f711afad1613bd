import type { Model } from '../models/model';
import { shardOf } from '../store/keys';
import { TABLE_KEY } from '../store/table';

/*
 * Expiry markers: for each record an aggregate counts while it has a ttl, one item in a
 * partition of that aggregate ordered by expiry, `pk = <model>#expiring#<name>#<shard>`,
 * `sk = <ttl, zero-padded>#<record sort key>`. ./apply.ts writes and deletes it in the same
 * transaction as the record's contribution, so a marker exists exactly while its record is
 * counted with that ttl; ./expire.ts reads the markers that are due (one Query per partition,
 * nothing else read) and takes each record out of its group at once, not when DynamoDB's TTL
 * deletes it days later. Outside every record's partition, so the change feed never reads them.
 */

/** What a marker holds to apply its record's removal: the record's id and the state it was counted with. */
export const MARKER_ID_ATTRIBUTE = 'id';
export const MARKER_CREATED_ATTRIBUTE = 'a';
export const MARKER_VERSION_ATTRIBUTE = 'n';

/** Digits of a ttl in a marker's key: epoch seconds up to the year 33658; later ones wait there, earlier than 1970 are due at once. */
const DIGITS = 12;
const padded = (seconds: number): string => String(Math.min(Math.max(Math.floor(seconds), 0), 10 ** DIGITS - 1)).padStart(DIGITS, '0');

export const markerPartition = (model: Model, aggregate: string, shard: number): string => `${model.name}#expiring#${aggregate}#${shard}`;

/** The marker's key of the record with sort key `recordSortKey` counted with expiry `ttl` (epoch seconds). */
export const markerKey = (model: Model, aggregate: string, id: string, recordSortKey: string, ttl: number): Record<string, string> => ({
  [TABLE_KEY.partitionKey]: markerPartition(model, aggregate, shardOf(model, id)),
  [TABLE_KEY.sortKey]: `${padded(ttl)}#${recordSortKey}`,
});

/** The record's sort key, from its marker's. */
export const markedSortKey = (markerSortKey: string): string => markerSortKey.slice(DIGITS + 1);

/** Marker sort keys below this are due at `now`: their ttl is at or before it. */
export const dueBefore = (now: number): string => padded(now + 1);
