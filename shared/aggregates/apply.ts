import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type PutCommandInput, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { inTime } from '../invocation';
import { addDecimal, negateDecimal } from '../json/decimal';
import { isExactNumber, numberText, toExactNumber } from '../json/exact-json';
import type { AggregateDefinition, Model } from '../models/model';
import { db } from '../store/client';
import { epochSeconds } from '../store/expiry/ttl';
import { TABLE_KEY, TTL_ATTRIBUTE } from '../store/table';
import { ADDS_ATTRIBUTE, COUNTED_IN_ATTRIBUTE, COUNT_ATTRIBUTE, EXPIRY_ATTRIBUTE, GROUP_ATTRIBUTE, ORDER_ATTRIBUTE, sumAttribute } from './items';
import { contributionKey, counterKey, groupValuesOf, stateOrder } from './keys';
import { MARKER_CREATED_ATTRIBUTE, MARKER_ID_ATTRIBUTE, MARKER_VERSION_ATTRIBUTE, markerKey } from './markers';

/** One state of a record: as stored after a write, or deleted (no data; the deleted state's creation and version). */
export interface RecordState {
  id: string;
  /** The record item's sort key: its id in its tenant's key space. */
  sortKey: string;
  createdAt: string;
  version: number;
  /** The record's data fields; absent: deleted. */
  data?: Record<string, unknown>;
  /** The item's expiry (its `_ttl`, epoch seconds), of a live state whose record has one. */
  ttl?: number;
}

/** What one state adds to its aggregate: the group it counts in, and the numbers it adds to each sum. */
interface Contribution {
  countedIn?: string;
  group?: Record<string, unknown>;
  adds: Record<string, string>;
  /** The ttl the record is counted with: its expiry marker's (./markers.ts). */
  expiry?: number;
}

/** A counter's change: records in or out, and exact amounts added to sums (number text). */
interface Delta {
  count: number;
  sums: Record<string, string>;
  /** The group's values, for a counter the change may create. */
  group?: Record<string, unknown>;
}

/**
 * Rounds of one apply before it gives up and throws: each is one read and one write, repeated
 * only when another applier moved the same contribution (the next read sees it) or held one of
 * the counters in a transaction of its own (TransactionConflict: nothing was written). The
 * stream hands a record that threw over again, so giving up loses nothing.
 */
const MAX_ROUNDS = 60;

/**
 * How long a deleted record's contribution (its tombstone: the delete's order, nothing counted)
 * is kept before the table's TTL takes it away, so that deletes do not leave an item each
 * forever. It is only there to make an older state of that life stale, and the stream hands a
 * record over again only within its 24 hours (shared/feed/stream/read.ts STREAM_RETENTION_HOURS,
 * also the local feed's, which refuses a checkpoint older than that); a week is far past it.
 * Locally nothing takes it away: the sweeper reads the models' partitions only.
 */
const TOMBSTONE_KEEP_SECONDS = 7 * 86_400;
const pause = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(5 * 2 ** round, 200)));

/**
 * What a state adds: nothing when deleted, nor when already expired (by this process's clock, as
 * the reads' condition is by theirs): an expired record is never counted, whether the expiry
 * pass (./expire.ts) or the stream's delete takes it out later.
 */
function contributionOf(model: Model, aggregate: string, definition: AggregateDefinition, state: RecordState): Contribution {
  if (state.data === undefined || (state.ttl !== undefined && state.ttl <= epochSeconds())) return { adds: {} };
  const values = groupValuesOf(definition, state.data);
  // The record's tenant key space: its sort key is the space, then its id.
  const space = state.sortKey.slice(0, state.sortKey.length - state.id.length);
  const adds: Record<string, string> = {};
  for (const field of definition.sum ?? []) {
    const value = state.data[field];
    if (isExactNumber(value)) adds[field] = numberText(value);
  }
  return {
    countedIn: counterKey(model, aggregate, values, space)[TABLE_KEY.sortKey],
    group: Object.fromEntries(definition.group_by.map((field, i) => [field, values[i] ?? null])),
    adds,
    ...(state.ttl === undefined ? {} : { expiry: state.ttl }),
  };
}

/**
 * Whether a state comes after the one a contribution holds (`held`, its stateOrder). By
 * stateOrder, but for a record made again after a delete: a live state of another creation than
 * the deleted one is that new life, whatever its `_created_at` says. A create's time is stamped
 * when its request starts, and one that lands late (settled by shared/store/write/late-write.ts
 * after its answer was lost) can follow the create and delete of a life stamped after it. The
 * stream hands over an item's changes in commit order, again from an earlier one at most, so
 * a life before the deleted one, handed over again, is followed by every change after it.
 */
function comesAfter(held: string, state: { createdAt: string; deleted: boolean; order: string }): boolean {
  const heldCreatedAt = held.slice(0, held.indexOf('#'));
  if (held.endsWith('#1') && !state.deleted && state.createdAt !== heldCreatedAt) return true;
  return state.order > held;
}

/** The contribution stored for a record, as read back: undefined when none was ever applied. */
async function heldContribution(key: Record<string, string>): Promise<(Contribution & { order: string }) | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: key, ConsistentRead: true }), inTime());
  if (!Item) return undefined;
  const adds = (Item[ADDS_ATTRIBUTE] ?? {}) as Record<string, unknown>;
  return {
    order: Item[ORDER_ATTRIBUTE] as string,
    countedIn: Item[COUNTED_IN_ATTRIBUTE] as string | undefined,
    ...(Item[EXPIRY_ATTRIBUTE] === undefined ? {} : { expiry: Number(Item[EXPIRY_ATTRIBUTE]) }),
    adds: Object.fromEntries(Object.entries(adds).flatMap(([field, value]) => (isExactNumber(value) ? [[field, numberText(value)]] : []))),
  };
}

/** Each counter's change when `from` is taken out and `to` put in; counters left as they were are not named. */
function deltas(from: Contribution | undefined, to: Contribution): Map<string, Delta> {
  const changes = new Map<string, Delta>();
  const add = (contribution: Contribution | undefined, sign: 1 | -1) => {
    if (contribution?.countedIn === undefined) return;
    const delta = changes.get(contribution.countedIn) ?? { count: 0, sums: {} };
    delta.count += sign;
    for (const [field, value] of Object.entries(contribution.adds))
      delta.sums[field] = addDecimal(delta.sums[field] ?? '0', sign > 0 ? value : negateDecimal(value));
    if (sign > 0) delta.group = contribution.group;
    changes.set(contribution.countedIn, delta);
  };
  add(from, -1);
  add(to, 1);
  for (const [key, delta] of changes) {
    for (const [field, sum] of Object.entries(delta.sums)) if (sum === '0') delete delta.sums[field];
    if (delta.count === 0 && Object.keys(delta.sums).length === 0) changes.delete(key);
  }
  return changes;
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

function counterUpdate(partition: string, sortKey: string, delta: Delta): TransactItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const adds: string[] = [];
  if (delta.count !== 0) {
    names['#c'] = COUNT_ATTRIBUTE;
    values[':c'] = delta.count;
    adds.push('#c :c');
  }
  Object.entries(delta.sums).forEach(([field, sum], i) => {
    names[`#s${i}`] = sumAttribute(field);
    values[`:s${i}`] = toExactNumber(sum);
    adds.push(`#s${i} :s${i}`);
  });
  let expression = adds.length > 0 ? `ADD ${adds.join(', ')}` : '';
  // No values to keep for the one group of an aggregate without group fields (and DynamoDB Local's
  // stream hands an empty map over as a value of no type, which the consumer cannot read).
  if (delta.group !== undefined && Object.keys(delta.group).length > 0) {
    names['#g'] = GROUP_ATTRIBUTE;
    values[':g'] = delta.group;
    expression += ' SET #g = if_not_exists(#g, :g)';
  }
  return {
    Update: {
      TableName: settings().TABLE_NAME,
      Key: { [TABLE_KEY.partitionKey]: partition, [TABLE_KEY.sortKey]: sortKey },
      UpdateExpression: expression.trim(),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * The expiry markers' changes when `from` is replaced by `to` (./markers.ts): the new state's
 * marker put (again when its key is the old one's: it names the state), the old one deleted.
 */
function markerWrites(model: Model, aggregate: string, state: RecordState, from: Contribution | undefined, to: Contribution): TransactItem[] {
  const writes: TransactItem[] = [];
  const TableName = settings().TABLE_NAME;
  const next = to.expiry === undefined ? undefined : markerKey(model, aggregate, state.id, state.sortKey, to.expiry);
  if (next) {
    const Item = {
      ...next,
      [MARKER_ID_ATTRIBUTE]: state.id,
      [MARKER_CREATED_ATTRIBUTE]: state.createdAt,
      [MARKER_VERSION_ATTRIBUTE]: state.version,
    };
    writes.push({ Put: { TableName, Item } });
  }
  if (from?.expiry !== undefined && from.expiry !== to.expiry)
    writes.push({ Delete: { TableName, Key: markerKey(model, aggregate, state.id, state.sortKey, from.expiry) } });
  return writes;
}

/** Why a write of this round did not land, when another round may: the contribution moved, or a counter was held. */
function retryReason(error: unknown): 'moved' | 'held' | undefined {
  if (error instanceof ConditionalCheckFailedException) return 'moved';
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const codes = (error.CancellationReasons ?? []).map((r) => r.Code);
  if (codes.includes('ConditionalCheckFailed')) return 'moved';
  return codes.includes('TransactionConflict') ? 'held' : undefined;
}

/**
 * Applies one state of a record to one of its model's aggregates, exactly once: the record's
 * contribution item is replaced by the state's, and the counters of the group it left and of
 * the group it joined get the difference, in one TransactWriteItems conditional on the
 * contribution being the one read. A state not after the contribution's (a redelivery, or an
 * older state arriving after a newer one) changes nothing: 'stale'. A state that moves no
 * counter (an update of fields the aggregate does not read) is one conditional PutItem, unless
 * the record has a ttl: its expiry marker names the state counted, and changes with it.
 *
 * A write whose answer was lost needs no settling: when its copy lands, the next round's read
 * sees the state applied and answers 'stale', and a copy landing late fails its condition.
 */
export async function applyRecordState(model: Model, aggregate: string, state: RecordState): Promise<'applied' | 'stale'> {
  const definition = model.aggregates[aggregate];
  if (definition === undefined) throw new Error(`model ${model.name} declares no aggregate ${aggregate}`);
  const order = stateOrder(state.createdAt, state.version, state.data === undefined);
  const key = contributionKey(model, aggregate, state.id, state.sortKey);
  const next = contributionOf(model, aggregate, definition, state);
  const partition = counterKey(model, aggregate, [])[TABLE_KEY.partitionKey];
  for (let round = 0; ; round++) {
    const held = await heldContribution(key);
    if (held && !comesAfter(held.order, { createdAt: state.createdAt, deleted: state.data === undefined, order })) return 'stale';
    const put: PutCommandInput = {
      TableName: settings().TABLE_NAME,
      Item: {
        ...key,
        [ORDER_ATTRIBUTE]: order,
        ...(next.countedIn === undefined ? {} : { [COUNTED_IN_ATTRIBUTE]: next.countedIn }),
        ...(next.expiry === undefined ? {} : { [EXPIRY_ATTRIBUTE]: next.expiry }),
        ...(state.data === undefined ? { [TTL_ATTRIBUTE]: epochSeconds() + TOMBSTONE_KEEP_SECONDS } : {}),
        ...(Object.keys(next.adds).length === 0
          ? {}
          : { [ADDS_ATTRIBUTE]: Object.fromEntries(Object.entries(next.adds).map(([f, v]) => [f, toExactNumber(v)])) }),
      },
      // The contribution as read, so that the counters' differences are taken from what it holds.
      ConditionExpression: held ? '#o = :held' : 'attribute_not_exists(#o)',
      ExpressionAttributeNames: { '#o': ORDER_ATTRIBUTE },
      ...(held ? { ExpressionAttributeValues: { ':held': held.order } } : {}),
    };
    const others = [
      ...[...deltas(held, next)].map(([sortKey, delta]) => counterUpdate(partition, sortKey, delta)),
      ...markerWrites(model, aggregate, state, held, next),
    ];
    try {
      if (others.length === 0) await db().send(new PutCommand(put), inTime());
      else await db().send(new TransactWriteCommand({ TransactItems: [{ Put: put }, ...others] }), inTime());
      return 'applied';
    } catch (error) {
      const reason = retryReason(error);
      if (reason === undefined || round + 1 >= MAX_ROUNDS) throw error;
      if (reason === 'held') await pause(round);
    }
  }
}
