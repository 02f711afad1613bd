import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { causeOf, log } from '../log';
import { TABLE_KEY } from '../store/table';
import { mapPool } from '../store/write/pool';
import { keepAggregates } from './aggregates';
import type { Change } from './change';
import { type CheckedSubscription, matches } from './check-subscriptions';
import { committedChange } from './from-stream';
import type { Delivery, DeliveryQueue } from './queue';

/** One change for one EventBridge subscription; `id` names it in what `publish` answers. */
export interface BusEntry {
  id: string;
  /** The subscription's `bus`: "default" for the stack's own, or a bus name. */
  bus: string;
  subscription: string;
  change: Change;
}

export interface ConsumeOptions {
  subscriptions: ReadonlyArray<CheckedSubscription>;
  queue: DeliveryQueue;
  /** Puts the entries on their buses (AWS); answers the ids of those that failed. */
  publish?: (entries: ReadonlyArray<BusEntry>) => Promise<ReadonlyArray<string>>;
}

/** Items whose records are handed on at once; one item's records always one after another. */
const ITEMS_AT_ONCE = 16;

/** Applies one record's change to its model's aggregates, then hands it to every subscription it matches; throws when any of them did not take it. */
async function handOn(record: DynamoDBRecord, { subscriptions, queue, publish }: ConsumeOptions): Promise<void> {
  const committed = await committedChange(record);
  if (committed === undefined) return;
  await keepAggregates(committed, record.dynamodb?.Keys?.[TABLE_KEY.sortKey]?.S ?? '');
  if (!committed.told) return;
  const { change } = committed;
  const matched = subscriptions.filter((subscription) => matches(subscription, change));
  const deliveries: Delivery[] = [];
  const entries: BusEntry[] = [];
  for (const s of matched) {
    if ('bus' in s) entries.push({ id: `${s.name}/${change.change_id}`, bus: s.bus, subscription: s.name, change });
    else deliveries.push({ subscription: s.name, change });
  }
  const [, failed] = await Promise.all([deliveries.length > 0 ? queue.send(deliveries) : undefined, entries.length > 0 && publish ? publish(entries) : []]);
  if (failed.length > 0) throw new Error(`EventBridge refused ${failed.length} of ${entries.length} entries`);
}

/**
 * The stream's consumer, for the Lambda on the table's stream and the local poller alike: each
 * record's change is applied to its model's aggregates, then handed to the subscriptions it
 * matches, webhooks through the delivery queue and buses through `publish`. One item's records go one after another, in stream order; other
 * items' go on beside them. When a record is not handed on, its item's later records are not
 * tried, and the answer names the earliest such record as the batch's first failure: the stream
 * is read again from there (ReportBatchItemFailures). What was handed on after it is handed on
 * again then, which the queue keeps once (./queue.ts) and a bus receives again (at least once),
 * and no item's change ever overtakes an earlier one of the same item.
 */
export async function consumeStream(records: ReadonlyArray<DynamoDBRecord>, options: ConsumeOptions): Promise<DynamoDBBatchResponse> {
  if (!options.publish && options.subscriptions.some((s) => 'bus' in s))
    throw new Error('an EventBridge subscription needs a publisher: buses are for AWS only');
  const byItem = new Map<string, number[]>();
  for (const [index, record] of records.entries()) {
    const keys = record.dynamodb?.Keys;
    const item = `${keys?.[TABLE_KEY.partitionKey]?.S}\n${keys?.[TABLE_KEY.sortKey]?.S}`;
    byItem.set(item, [...(byItem.get(item) ?? []), index]);
  }
  let earliest = records.length;
  await mapPool([...byItem.values()], ITEMS_AT_ONCE, async (indexes) => {
    for (const index of indexes) {
      // Past a failure already found, nothing is checkpointed anyway: no need to try.
      if (index > earliest) return;
      try {
        await handOn(records[index], options);
      } catch (error) {
        log.error('feed_record_failed', { event_id: records[index].eventID, sequence: records[index].dynamodb?.SequenceNumber, ...causeOf(error) });
        earliest = Math.min(earliest, index);
        return;
      }
    }
  });
  const failed = records[earliest];
  return { batchItemFailures: failed ? [{ itemIdentifier: failed.dynamodb?.SequenceNumber ?? '' }] : [] };
}
