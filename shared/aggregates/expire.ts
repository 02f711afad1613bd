import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { bulkMayContinue, inTime } from '../invocation';
import { LIMITS } from '../limits';
import type { Model } from '../models/model';
import { db } from '../store/client';
import { epochSeconds } from '../store/expiry/ttl';
import { TABLE_KEY } from '../store/table';
import { mapPool } from '../store/write/pool';
import { applyRecordState } from './apply';
import { MARKER_CREATED_ATTRIBUTE, MARKER_ID_ATTRIBUTE, MARKER_VERSION_ATTRIBUTE, dueBefore, markedSortKey, markerPartition } from './markers';

/** Whether a model's aggregates count records that expire: the expiry pass's work, and what deploys its scheduled function. */
export const expiresAggregates = (model: Model): boolean => model.ttl !== undefined && Object.keys(model.aggregates).length > 0;

/** Markers read per Query page. */
const PAGE = 100;

/**
 * The expiry pass: takes every record whose ttl is at or before `now` out of the aggregates that
 * count it, at once rather than when DynamoDB's TTL deletes it (within days). Reads only the due
 * expiry markers (./markers.ts), and applies to each the deleted state of the record as it was
 * counted, through applyRecordState: its transaction deletes the marker, a newer state applied
 * since makes it stale (the newer state's marker, if any, stands), and the stream's own delete of
 * that state, when it comes, is stale in turn, so nothing is subtracted twice. Stops between
 * pages near the invocation's deadline or after `budget` markers; what is left is due at the next
 * pass, which starts again from the oldest. Answers the removals applied (one per record and
 * aggregate), and whether every due marker was read.
 */
export async function expireAggregates(model: Model, now = epochSeconds(), budget = Infinity): Promise<{ removed: number; done: boolean }> {
  let removed = 0;
  let read = 0;
  for (const aggregate of Object.keys(model.aggregates)) {
    for (let shard = 0; shard < model.shards; shard++) {
      let after: Record<string, unknown> | undefined;
      do {
        if (read >= budget || !bulkMayContinue()) return { removed, done: false };
        const page = await db().send(
          new QueryCommand({
            TableName: settings().TABLE_NAME,
            KeyConditionExpression: '#pk = :pk AND #sk < :due',
            ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey, '#sk': TABLE_KEY.sortKey },
            ExpressionAttributeValues: { ':pk': markerPartition(model, aggregate, shard), ':due': dueBefore(now) },
            ConsistentRead: true,
            ExclusiveStartKey: after,
            Limit: Math.min(PAGE, budget - read),
          }),
          inTime(),
        );
        const markers = page.Items ?? [];
        read += markers.length;
        const results = await mapPool(markers, LIMITS.writeConcurrency, (marker) =>
          applyRecordState(model, aggregate, {
            id: marker[MARKER_ID_ATTRIBUTE] as string,
            sortKey: markedSortKey(marker[TABLE_KEY.sortKey] as string),
            createdAt: marker[MARKER_CREATED_ATTRIBUTE] as string,
            version: Number(marker[MARKER_VERSION_ATTRIBUTE]),
          }),
        );
        for (const result of results) {
          if (result.status === 'rejected') throw result.reason;
          if (result.value === 'applied') removed += 1;
        }
        after = page.LastEvaluatedKey;
      } while (after);
    }
  }
  return { removed, done: true };
}
