import type { Model } from '../../models/model';
import { isExpired } from '../expiry/ttl';
import { dataSpace, itemKey, shardOf } from '../keys';
import { toRecord } from '../read/projection';
import { shardPage } from '../read/query';
import { TABLE_KEY } from '../table';
import type { ApiRecord } from '../types';

/** Where a read of every record stands: the shard, and the sort key of the last record read in it. */
export interface Position {
  shard: number;
  after?: string;
}

/** Records read per Query: a page at a time is all an export holds in memory. */
const PAGE = 500;

/**
 * Every record of the model as the record API answers it (data, id, system fields), shard by
 * shard in key order, a page at a time from `from` on. The model itself, never a caller's view
 * of it: every tenant's and every owner's records, hidden fields included; never an expired one.
 */
export async function* everyRecord(model: Model, from: Position = { shard: 0 }): AsyncGenerator<ApiRecord[]> {
  for (let shard = from.shard; shard < model.shards; shard++) {
    let after = shard === from.shard ? from.after : undefined;
    do {
      const page = await shardPage(model, shard, { after, limit: PAGE });
      const live = page.items.filter((item) => !isExpired(item));
      if (live.length > 0) yield live.map((item) => toRecord(item));
      after = page.last;
    } while (after !== undefined);
  }
}

/** The position just after a record everyRecord gave: its shard and key follow from its id and its tenant field. */
export function positionAfter(model: Model, record: ApiRecord): Position {
  return { shard: shardOf(model, record.id), after: itemKey(model, record.id, dataSpace(model, record))[TABLE_KEY.sortKey] };
}
