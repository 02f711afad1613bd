import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { feedBusName, settings } from '../config';
import { BOUNDED_HTTP, inTime } from '../invocation';
import { loadOnce } from '../load-once';
import { causeOf, log } from '../log';
import { batchesOf } from './batches';
import type { BusEntry } from './consume';

/**
 * PutEvents' limits (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html,
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html): at most 10
 * entries a call, and 256 KB a call, an entry counted as 14 bytes for its Time plus the UTF-8 bytes
 * of its Source, DetailType and Detail.
 */
export const PUT_EVENTS = { maxEntries: 10, maxBytes: 256 * 1024, timeBytes: 14 } as const;

export const EVENT_SOURCE = 'recordgate';

const eventBridgeApi = loadOnce(() => import('@aws-sdk/client-eventbridge'));
let client: EventBridgeClient | undefined;

/**
 * The change as the event's detail. A change too big for one event (a record near DynamoDB's
 * 400 KB item limit, told twice by an update) goes out without its `before` and `after`, marked
 * `images_omitted`: the receiver still learns what changed, which version, and reads the record
 * by its id; dropping the event would hide the change altogether.
 */
function entryOf({ bus, change }: BusEntry, stackBus: string | undefined): { entry: PutEventsRequestEntry; bytes: number } {
  const detailType = `${change.model}.${change.op}`;
  const sized = (detail: string) => PUT_EVENTS.timeBytes + Buffer.byteLength(EVENT_SOURCE) + Buffer.byteLength(detailType) + Buffer.byteLength(detail);
  let detail = JSON.stringify(change);
  if (sized(detail) > PUT_EVENTS.maxBytes) {
    const { before: _before, after: _after, ...rest } = change;
    detail = JSON.stringify({ ...rest, images_omitted: true });
  }
  const entry = { EventBusName: bus === 'default' ? stackBus : bus, Source: EVENT_SOURCE, DetailType: detailType, Detail: detail, Time: new Date(change.time) };
  return { entry, bytes: sized(detail) };
}

/**
 * Puts each change on its subscription's bus, `source: recordgate`, `detail-type: <model>.<op>`,
 * in calls of PutEvents' size; answers the ids of the entries EventBridge did not take
 * (FailedEntryCount: each failed entry carries an ErrorCode) or whose call failed, so that the
 * stream's consumer (./consume.ts) reports their records as batch item failures and Lambda sends
 * them again.
 */
export async function publish(entries: ReadonlyArray<BusEntry>): Promise<string[]> {
  if (entries.length === 0) return [];
  const stackBus = feedBusName();
  const failed: string[] = [];
  const sized = entries.map((entry) => ({ ...entryOf(entry, stackBus), source: entry }));
  const unroutable = sized.filter((s) => s.entry.EventBusName === undefined);
  if (unroutable.length > 0) {
    // A subscription to the stack's bus where no stack made one (FEED_BUS_NAME unset): never the account's default bus by accident.
    log.error('feed_bus_unset', { subscriptions: [...new Set(unroutable.map((s) => s.source.subscription))] });
    failed.push(...unroutable.map((s) => s.source.id));
  }
  const { PutEventsCommand, EventBridgeClient } = await eventBridgeApi();
  client ??= new EventBridgeClient({ region: settings().AWS_REGION, requestHandler: BOUNDED_HTTP });
  const routable = sized.filter((s) => s.entry.EventBusName !== undefined);
  for (const batch of batchesOf(routable, (s) => s.bytes, PUT_EVENTS.maxEntries, PUT_EVENTS.maxBytes)) {
    try {
      const { FailedEntryCount = 0, Entries = [] } = await client.send(new PutEventsCommand({ Entries: batch.map((s) => s.entry) }), inTime());
      if (FailedEntryCount === 0) continue;
      // The answer's entries are in the request's order, a failed one with an ErrorCode instead of an EventId.
      const refused = batch.flatMap((s, i) => (Entries[i]?.EventId === undefined ? [{ s, code: Entries[i]?.ErrorCode }] : []));
      log.warn('feed_events_refused', {
        entries: refused.map(({ s, code }) => ({ subscription: s.source.subscription, change_id: s.source.change.change_id, code })),
      });
      failed.push(...refused.map(({ s }) => s.source.id));
    } catch (error) {
      log.error('feed_put_events_failed', { count: batch.length, ...causeOf(error) });
      failed.push(...batch.map((s) => s.source.id));
    }
  }
  return failed;
}
