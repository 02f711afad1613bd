import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { toExactNumber } from '../json/exact-json';
import { findModel } from '../models/catalog';
import type { Model } from '../models/define';
import { epochSeconds, isExpired, storedExpiry } from '../store/expiry/ttl';
import { partitionKey, shardOf, tenantOfSortKey } from '../store/keys';
import { toRecord } from '../store/read/projection';
import type { Item } from '../store/read/query';
import { DATA_ATTRIBUTE, REQUEST_ATTRIBUTE, SUBJECT_ATTRIBUTE, TABLE_KEY, VERSION_ATTRIBUTE } from '../store/table';
import type { Change, ChangeOp } from './change';

const OPS: Readonly<Record<string, ChangeOp>> = { INSERT: 'create', MODIFY: 'update', REMOVE: 'delete' };

type Image = NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];

/** An image as the store reads items: numbers exact, as the record API answers them. */
const itemOf = (image: Image): Item | undefined =>
  image === undefined ? undefined : (unmarshall(image as Record<string, AttributeValue>, { wrapNumbers: toExactNumber }) as Item);

/**
 * The catalog model whose record the item is, or undefined for the service's own items (layout,
 * Idempotency-Key runs, health, anything else): a record holds its data and lies in its model's
 * partition for its id.
 */
async function modelOf(item: Item): Promise<Model | undefined> {
  const pk = item[TABLE_KEY.partitionKey];
  if (typeof pk !== 'string' || typeof item.id !== 'string' || item[DATA_ATTRIBUTE] === undefined) return undefined;
  const model = await findModel(pk.split('#')[0]);
  return model && pk === partitionKey(model, shardOf(model, item.id)) ? model : undefined;
}

/**
 * DynamoDB's TTL deletes as this service principal, and no request can
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html).
 */
const byTimeToLive = (record: DynamoDBRecord): boolean =>
  record.userIdentity?.type === 'Service' && record.userIdentity?.principalId === 'dynamodb.amazonaws.com';

const stamp = (item: Item | undefined, attribute: string): string | undefined => {
  const value = item?.[attribute];
  return typeof value === 'string' ? value : undefined;
};

/**
 * Whether the stream record's keys can be a record's: its partition `<model>#<shard>`. An
 * aggregate's counters and contributions (shared/aggregates/keys.ts) and the service's own items
 * are left before their images are read: DynamoDB Local writes an empty map (a counter's group
 * of an aggregate without group fields) as `{}` in the stream, which no reader takes.
 */
const RECORD_PARTITION = /^[^#]+#\d+$/;

/**
 * The change one stream record tells (NEW_AND_OLD_IMAGES, in the shape Lambda hands a DynamoDB
 * stream's records over; a reader of the stream's own API converts to it), or undefined when it
 * tells none: an item that is no record of a catalog model, a MODIFY that leaves the version
 * as it was, or a write that leaves a record already expired at the commit. Every write of a
 * record raises its version (shared/store/actions/update/params.ts writeStamp); the index build
 * writes a new slot's keys under the version it read, which the record API never shows.
 *
 * Expiry (docs/feed.md): a REMOVE of a record expired at the commit is an expiry, whoever made
 * it (DynamoDB's TTL in AWS, the local sweeper), since no request reaches an expired record; a
 * create that takes the id of an expired record, not yet deleted, is told as a create.
 */
export async function changeOf(record: DynamoDBRecord): Promise<Change | undefined> {
  const read = await committedChange(record);
  return read?.told ? read.change : undefined;
}

/** A committed change of a record, whether subscribers are told it, and the item's expiry after it. */
export interface CommittedChange {
  change: Change;
  /** False for a write that leaves the record expired: no subscriber is told it, but the aggregates must take it out. */
  told: boolean;
  /** The item's `_ttl` after the change, when it has one. */
  ttl?: number;
}

/** What changeOf reads, with what the aggregates need besides (shared/feed/aggregates.ts): every committed write of a record, told or not. */
export async function committedChange(record: DynamoDBRecord): Promise<CommittedChange | undefined> {
  if (!RECORD_PARTITION.test(record.dynamodb?.Keys?.[TABLE_KEY.partitionKey]?.S ?? '')) return undefined;
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  const committed = seconds === undefined ? epochSeconds() : Math.floor(seconds);
  const oldImage = itemOf(record.dynamodb?.OldImage);
  const after = itemOf(record.dynamodb?.NewImage);
  // A write that leaves a record expired is never told (the request saw nothing, or made it expire): its expiry will be.
  const told = record.eventName === 'REMOVE' || !isExpired(after, committed);
  const revived = record.eventName === 'MODIFY' && isExpired(oldImage, committed);
  const before = revived ? undefined : oldImage;
  const op = revived ? 'create' : OPS[record.eventName ?? ''];
  const item = after ?? before;
  if (op === undefined || item === undefined) return undefined;
  const model = await modelOf(item);
  if (!model) return undefined;
  if ((op !== 'create' && !before) || (op !== 'delete' && !after) || record.eventID === undefined) {
    // Dropping it would lose a committed change without a trace: the stream must carry both images.
    throw new Error(`stream record ${record.eventID ?? '(no eventID)'} of ${model.name} lacks an image its ${op} needs: the stream must be NEW_AND_OLD_IMAGES`);
  }
  if (op === 'update' && Number(before?.[VERSION_ATTRIBUTE]) === Number(after?.[VERSION_ATTRIBUTE])) return undefined;
  const tenant = model.tenant ? tenantOfSortKey(String(item[TABLE_KEY.sortKey])) : undefined;
  const requestId = stamp(after, REQUEST_ATTRIBUTE);
  const subject = stamp(after, SUBJECT_ATTRIBUTE);
  const ttl = storedExpiry(after);
  const change: Change = {
    change_id: record.eventID,
    model: model.name,
    id: item.id as string,
    ...(tenant === undefined ? {} : { tenant }),
    op,
    version: Number(item[VERSION_ATTRIBUTE]),
    // The stream's own time of the commit (whole seconds); the record's _updated_at is in `after`.
    time: new Date(seconds === undefined ? Date.now() : seconds * 1000).toISOString(),
    ...(op === 'delete' && (byTimeToLive(record) || isExpired(before, committed)) ? { expired: true as const } : {}),
    ...(before && op !== 'create' ? { before: toRecord(before) } : {}),
    ...(after && op !== 'delete' ? { after: toRecord(after) } : {}),
    ...(requestId === undefined ? {} : { request_id: requestId }),
    ...(subject === undefined ? {} : { subject }),
  };
  return { change, told, ...(ttl === undefined ? {} : { ttl }) };
}
