import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { LIMITS } from '../limits';
import { SYSTEM_FIELDS, type Model } from '../models/define';
import type { ErrorDetail } from '../models/details';
import { checkAgainst } from '../models/validate';
import { db } from './client';
import {
  BatchOutOfTime, EmptyFilter, InvalidCursor, InvalidRecord, InvalidValues, PartialWrite, RecordBusy, RecordExists, RecordNotFound,
  RepeatedIds, TooManyMatches, UnknownField, type BulkCounts,
} from './errors';
import { decodeCursor, decodeResumeCursor, encodeCursor, encodeResumeCursor, queryFingerprint } from './cursor';
import { isMatchAll, type FilterNode } from './filter/ast';
import { compileFilter } from './filter/compile';
import { ExpressionBuilder } from './filter/expression';
import { parseFilter } from './filter/parse';
import { indexAttributes, indexSlotOf, indexSortKey, partitionKey, shardOf } from './keys';
import { parseOrder, planAccess, type AccessPlan } from './plan';
import { checkItemSize } from './item-size';
import { mapPool } from './pool';
import { countAll, readAll, readPage, type Item, type Position } from './query';
import { TABLE_KEY, TTL_ATTRIBUTE } from './table';
import { utf8Order } from './utf8-order';

/** A record as the API shows it: id, the model's fields, then the system fields. */
export type ApiRecord = Record<string, unknown> & { id: string };

export function toRecord(item: Item, fields?: ReadonlyArray<string>): ApiRecord {
  const full: ApiRecord = {
    id: item.id as string,
    ...(item.d as Record<string, unknown>),
    _created_at: item._created_at,
    _updated_at: item._updated_at,
    _version: item._version,
  };
  if (!fields) return full;
  const picked: ApiRecord = { id: full.id };
  for (const f of fields) if (Object.hasOwn(full, f)) picked[f] = full[f];
  return picked;
}

function checkFields(model: Model, fields: ReadonlyArray<string> | undefined): void {
  const known = new Set([...Object.keys(SYSTEM_FIELDS), ...Object.keys(model.storedSchema.properties)]);
  const unknown = (fields ?? []).find((f) => !known.has(f));
  if (unknown !== undefined) {
    throw new UnknownField(model.name, unknown, { path: 'fields', message: `unknown field ${unknown}` }, [...known]);
  }
}

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException;

/**
 * Every write stamps the item with a token of its own (`_w`, never shown). When the SDK retries
 * a write whose answer was lost (a reset or timeout after DynamoDB applied it), the retry's
 * condition fails against the write itself; finding the token tells "my write landed" apart
 * from "someone else's did".
 */
const WRITE_TOKEN = '_w';
// randomUUID draws from a cached entropy pool: a fraction of randomBytes' cost per call.
const newWriteToken = (): string => randomUUID();

/** The item as stored now (strongly consistent), or undefined. */
async function currentItem(model: Model, id: string): Promise<Item | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: settings().TABLE_NAME, Key: keyOf(model, id), ConsistentRead: true }));
  return Item as Item | undefined;
}

/** A condition failure on a retried attempt may be the request's own earlier attempt. */
const wasRetried = (error: unknown): boolean => ((error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1) > 1;
const keyOf = (model: Model, id: string) => ({ [TABLE_KEY.partitionKey]: partitionKey(model, shardOf(model, id)), [TABLE_KEY.sortKey]: id });

// ---------------------------------------------------------------- create

export interface NewRecord {
  id: string;
  data: Record<string, unknown>;
}

/** A new record as the table holds it: keys, index attributes, data and system fields. */
export function storedItem(model: Model, record: NewRecord, now: string, writeToken = newWriteToken()): Item {
  const keepFor = model.retention?.(record.data);
  return {
    ...keyOf(model, record.id),
    ...indexAttributes(model, record.id, record.data),
    id: record.id,
    d: record.data,
    _created_at: now,
    _updated_at: now,
    _version: 1,
    [WRITE_TOKEN]: writeToken,
    ...(keepFor === undefined ? {} : { [TTL_ATTRIBUTE]: Math.floor(Date.parse(now) / 1000) + keepFor }),
  };
}

/**
 * Validates every record first (one 422 lists them all, nothing is written), then writes each
 * with attribute_not_exists so an existing id is never overwritten. If any id turns out to
 * exist, the records this request did create are removed again, so a 409 changes nothing. The
 * same holds at the deadline: no write starts within the reserve before it, and a batch that
 * could not be written whole is removed again (503), never left half-stored by a frozen function.
 */
export async function createRecords(model: Model, entries: ReadonlyArray<{ id: string; data: unknown }>, pathOf: (i: number) => PropertyKey[], deadline = Infinity): Promise<ApiRecord[]> {
  const details: ErrorDetail[] = [];
  const valid: NewRecord[] = [];
  entries.forEach((entry, i) => {
    const result = checkAgainst(model.schema, entry.data, pathOf(i));
    details.push(...result.details);
    if (result.value) valid.push({ id: entry.id, data: result.value as Record<string, unknown> });
  });
  if (details.length > 0) throw new InvalidRecord(details);
  const duplicates = entries.map((e) => e.id).filter((id, i, all) => all.indexOf(id) !== i);
  if (duplicates.length > 0) throw new RepeatedIds([...new Set(duplicates)]);

  const now = new Date().toISOString();
  const items = valid.map((r) => storedItem(model, r, now));
  for (const item of items) checkItemSize(item, item.id as string);
  const results = await mapPool(items, LIMITS.writeConcurrency, async (item) => {
    try {
      await db().send(new PutCommand({
        TableName: settings().TABLE_NAME,
        Item: item,
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
      }));
    } catch (error) {
      if (!(isConditionFailure(error) && wasRetried(error) && (await currentItem(model, item.id as string))?.[WRITE_TOKEN] === item[WRITE_TOKEN])) throw error;
    }
  }, beforeCutoff(deadline));
  const conflicts = items.filter((_, i) => results[i]?.status === 'rejected' && isConditionFailure((results[i] as PromiseRejectedResult).reason));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !isConditionFailure(r.reason));
  const outOfTime = results.length < items.length;
  if (conflicts.length > 0 || failed || outOfTime) {
    const written = items.filter((_, i) => results[i]?.status === 'fulfilled');
    const notRemoved = await undoCreates(written);
    if (failed && conflicts.length === 0) throw failed.reason;
    if (conflicts.length === 0) throw new BatchOutOfTime(notRemoved);
    throw new RecordExists(model.name, conflicts.map((c) => c.id as string), notRemoved);
  }
  return items.map((item) => toRecord(item));
}

/** Removes records this request created, unless someone wrote them since. Returns the ids left. */
async function undoCreates(items: ReadonlyArray<Item>): Promise<string[]> {
  const results = await mapPool(items, LIMITS.writeConcurrency, (item) =>
    db().send(new DeleteCommand({
      TableName: settings().TABLE_NAME,
      Key: { [TABLE_KEY.partitionKey]: item[TABLE_KEY.partitionKey], [TABLE_KEY.sortKey]: item[TABLE_KEY.sortKey] },
      ConditionExpression: '#v = :v AND #c = :c',
      ExpressionAttributeNames: { '#v': '_version', '#c': '_created_at' },
      ExpressionAttributeValues: { ':v': 1, ':c': item._created_at },
    })),
  );
  return items.filter((_, i) => results[i].status === 'rejected').map((item) => item.id as string);
}

// ---------------------------------------------------------------- reads

export interface ListRequest {
  filters?: unknown;
  order_by?: string | string[];
  limit?: number;
  cursor?: string;
  fields?: string[];
  consistent?: boolean;
}

export interface ListAnswer {
  items: ApiRecord[];
  next_cursor: string | null;
  scanned: number;
}

export async function listRecords(model: Model, request: ListRequest): Promise<ListAnswer> {
  const filter = parseFilter(model, request.filters);
  const order = parseOrder(model, request.order_by);
  checkFields(model, request.fields);
  const plan = planAccess(model, filter, order);
  const fingerprint = queryFingerprint(request.filters, request.order_by);
  const positions: Position[] = request.cursor ? await decodeCursor(request.cursor, model, fingerprint, plan) : plan.shards.map(() => undefined);
  const limit = request.limit ?? LIMITS.defaultPageSize;
  const page = await readPage({ plan, filter, consistent: request.consistent }, limit, positions, LIMITS.maxScannedPerRequest).catch((error: unknown) => {
    // The last word on a start key is DynamoDB's: one outside the query is a bad cursor, not a 500.
    const e = error as { name?: string; message?: string };
    if (request.cursor && e.name === 'ValidationException' && /starting key/i.test(e.message ?? '')) {
      throw new InvalidCursor('The cursor does not fit this query', 'not a position of this query');
    }
    throw error;
  });
  return {
    items: page.items.map((item) => toRecord(item, request.fields)),
    next_cursor: await encodeCursor(model, fingerprint, page.positions),
    scanned: page.scanned,
  };
}

export async function getOneRecord(model: Model, request: Pick<ListRequest, 'filters' | 'fields' | 'consistent'>): Promise<ApiRecord> {
  const filter = parseFilter(model, request.filters);
  checkFields(model, request.fields);
  const plan = planAccess(model, filter, { field: 'id', descending: false });
  const positions = plan.shards.map(() => undefined);
  const page = await readPage({ plan, filter, consistent: request.consistent }, 1, positions, Infinity);
  if (page.items.length === 0) throw new RecordNotFound(model.name);
  return toRecord(page.items[0], request.fields);
}

export async function countRecords(model: Model, request: { filters?: unknown; consistent?: boolean }): Promise<{ count: number; scanned: number }> {
  const filter = parseFilter(model, request.filters);
  const plan = planAccess(model, filter, { field: 'id', descending: false });
  return countAll({ plan, filter, consistent: request.consistent });
}

// ---------------------------------------------------------------- bulk writes

export interface BulkGuard {
  filters: unknown;
  allow_all?: boolean;
  max_affected?: number;
  /** next_cursor of an earlier call with the same request that stopped short of its deadline. */
  cursor?: string;
}

interface Matched {
  filter: FilterNode;
  plan: AccessPlan;
  /** In id order (UTF-8 bytes, as DynamoDB sorts), so the records written are always a prefix. */
  items: Item[];
}

/**
 * The records a bulk write would touch, after its guards: no accidental all, no more than
 * allowed; with a cursor, only those after the last record the earlier call reached.
 */
async function matchForWrite(model: Model, guard: BulkGuard, fingerprint: string): Promise<Matched> {
  let filter = parseFilter(model, guard.filters);
  if (isMatchAll(filter) && guard.allow_all !== true) throw new EmptyFilter();
  if (guard.cursor !== undefined) {
    const after = await decodeResumeCursor(guard.cursor, model, fingerprint);
    filter = { kind: 'and', items: [filter, { kind: 'compare', field: 'id', path: ['id'], op: 'gt', operands: [after] }] };
  }
  const maxAffected = guard.max_affected ?? LIMITS.maxAffected;
  const plan = planAccess(model, filter, { field: 'id', descending: false });
  const { items, truncated } = await readAll({ plan, filter, consistent: true }, maxAffected);
  if (truncated) throw new TooManyMatches(maxAffected);
  items.sort((a, b) => utf8Order(a.id as string, b.id as string));
  return { filter, plan, items };
}

/** Re-reads one record if it still matches the filter (consistently), for a retried write. */
async function rereadMatching(model: Model, filter: FilterNode, id: string): Promise<Item | undefined> {
  const x = new ExpressionBuilder();
  const key = keyOf(model, id);
  const keyCondition = `${x.name(TABLE_KEY.partitionKey)} = ${x.value(key.pk)} AND ${x.name(TABLE_KEY.sortKey)} = ${x.value(id)}`;
  const page = await db().send(new QueryCommand({
    TableName: settings().TABLE_NAME,
    KeyConditionExpression: keyCondition,
    FilterExpression: compileFilter(filter, x),
    ConsistentRead: true,
    ...x.attributes(),
  }));
  return page.Items?.[0] as Item | undefined;
}

function merged(item: Item, values: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = { ...(item.d as Record<string, unknown>) };
  for (const [field, value] of Object.entries(values)) {
    if (value === null) delete data[field];
    else data[field] = value;
  }
  return data;
}

function checkValues(values: Record<string, unknown>): void {
  const details: ErrorDetail[] = Object.keys(values)
    .filter((field) => Object.hasOwn(SYSTEM_FIELDS, field))
    .map((field) => ({ path: `values.${field}`, message: `${field} is managed by the service and cannot be set` }));
  if (details.length > 0) throw new InvalidValues(`values cannot set ${details.map((d) => d.path.slice(7)).join(', ')}`, details);
  if (Object.keys(values).length === 0) throw new InvalidValues('values is empty: name at least one field to set', [{ path: 'values', message: 'empty' }]);
}

/** The data every matched record would have after the update; all valid, or one 422 and nothing written. */
function validatedUpdates(model: Model, items: Item[], values: Record<string, unknown>): Map<string, Record<string, unknown>> {
  const updates = new Map<string, Record<string, unknown>>();
  const details: ErrorDetail[] = [];
  for (const item of items) {
    const result = checkAgainst(model.schema, merged(item, values), ['values']);
    if (result.value) {
      checkItemSize(updatedItem(model, item, result.value as Record<string, unknown>), item.id as string);
      updates.set(item.id as string, result.value as Record<string, unknown>);
    }
    for (const d of result.details) details.push({ ...d, message: `record ${item.id as string}: ${d.message}` });
  }
  if (details.length > 0) throw new InvalidRecord(details);
  return updates;
}

/** The item as an update would leave it (a close upper bound: timestamps and tokens keep their length). */
const updatedItem = (model: Model, item: Item, data: Record<string, unknown>): Item =>
  ({ ...item, ...indexAttributes(model, item.id as string, data), d: data, _version: (item._version as number) + 1 });

async function writeUpdate(model: Model, item: Item, data: Record<string, unknown>, writeToken: string): Promise<void> {
  const x = new ExpressionBuilder();
  const id = item.id as string;
  const set = [
    `${x.name('d')} = ${x.value(data)}`,
    `${x.name('_updated_at')} = ${x.value(new Date().toISOString())}`,
    `${x.name('_version')} = ${x.name('_version')} + ${x.value(1)}`,
    `${x.name(WRITE_TOKEN)} = ${x.value(writeToken)}`,
  ];
  for (const field of model.indexed) {
    set.push(`${x.name(indexSlotOf(model, field)!.sortKey)} = ${x.value(indexSortKey(data[field], id))}`);
  }
  await db().send(new UpdateCommand({
    TableName: settings().TABLE_NAME,
    Key: keyOf(model, id),
    UpdateExpression: `SET ${set.join(', ')}`,
    ConditionExpression: `${x.name('_version')} = ${x.value(item._version)}`,
    ...x.attributes(),
  }));
}

/**
 * A failed conditional write means another writer's write landed; the jittered pause spreads
 * racing writers out. Past LIMITS.maxContentionAttempts the record is too busy to answer now:
 * 503 with Retry-After, and the counts of what was written.
 */
const contentionPause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));

/** Writes one record, re-reading it when someone changed it in between; false when it no longer matches. */
async function updateOne(model: Model, filter: FilterNode, first: Item, firstData: Record<string, unknown>, values: Record<string, unknown>): Promise<boolean> {
  let item: Item | undefined = first;
  let data = firstData;
  for (let attempt = 1; item; attempt++) {
    const writeToken = newWriteToken();
    try {
      await writeUpdate(model, item, data, writeToken);
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (wasRetried(error) && (await currentItem(model, first.id as string))?.[WRITE_TOKEN] === writeToken) return true;
      if (attempt >= LIMITS.maxContentionAttempts) {
        throw new RecordBusy(first.id as string);
      }
    }
    await contentionPause(attempt);
    item = await rereadMatching(model, filter, first.id as string);
    if (item) {
      const result = checkAgainst(model.schema, merged(item, values), ['values']);
      if (!result.value) return false;
      data = result.value as Record<string, unknown>;
      checkItemSize(updatedItem(model, item, data), first.id as string);
    }
  }
  return false;
}

export interface UpdateRequest extends BulkGuard {
  values: Record<string, unknown>;
}

export interface BulkAnswer {
  matched: number;
  skipped: number;
  /** false when the call stopped short of its deadline; next_cursor then goes on from there. */
  complete: boolean;
  next_cursor: string | null;
}

/** Whether a write of many records (create, update, delete) may start another: not within the reserve before the deadline. */
const beforeCutoff = (deadline: number) => () => Date.now() < deadline - LIMITS.bulkStopBeforeDeadlineMs;

/**
 * Update by filter. Each write is conditional on the version read, so a concurrent change is
 * never overwritten: the record is re-read, re-checked against the filter and retried.
 */
export async function updateRecords(model: Model, request: UpdateRequest, deadline = Infinity): Promise<BulkAnswer & { updated: number }> {
  checkValues(request.values);
  const fingerprint = queryFingerprint(request.filters, ['update', request.values]);
  const { filter, items } = await matchForWrite(model, request, fingerprint);
  const updates = validatedUpdates(model, items, request.values);
  const results = await mapPool(items, LIMITS.writeConcurrency, (item) => updateOne(model, filter, item, updates.get(item.id as string)!, request.values), beforeCutoff(deadline));
  return settle(results, 'updated', items.length, await resumeCursor(model, fingerprint, request, items, results.length));
}

/** Delete by filter; each delete re-checks the filter atomically, so a record that stopped matching stays. */
export async function deleteRecords(model: Model, request: BulkGuard, deadline = Infinity): Promise<BulkAnswer & { deleted: number }> {
  const fingerprint = queryFingerprint(request.filters, ['delete']);
  const { filter, items } = await matchForWrite(model, request, fingerprint);
  const results = await mapPool(items, LIMITS.writeConcurrency, async (item) => {
    const x = new ExpressionBuilder();
    const condition = [`attribute_exists(${x.name(TABLE_KEY.partitionKey)})`, compileFilter(filter, x)].filter(Boolean).join(' AND ');
    try {
      await db().send(new DeleteCommand({ TableName: settings().TABLE_NAME, Key: keyOf(model, item.id as string), ConditionExpression: condition, ...x.attributes() }));
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Gone after a retried attempt: the first attempt deleted it and only its answer was lost.
      return wasRetried(error) && (await currentItem(model, item.id as string)) === undefined;
    }
  }, beforeCutoff(deadline));
  return settle(results, 'deleted', items.length, await resumeCursor(model, fingerprint, request, items, results.length));
}

/**
 * null when every matched record was reached; else a cursor that goes on after the last one
 * reached (or from where this call began, when the deadline came before any write).
 */
async function resumeCursor(model: Model, fingerprint: string, request: BulkGuard, items: Item[], reached: number): Promise<string | null> {
  if (reached === items.length) return null;
  if (reached > 0) return encodeResumeCursor(model, fingerprint, items[reached - 1].id as string);
  return request.cursor ?? encodeResumeCursor(model, fingerprint, '');
}

/**
 * The count of changed records, or, when some writes failed for good, an error that says
 * exactly how many were changed before giving up.
 */
function settle<K extends 'updated' | 'deleted'>(results: PromiseSettledResult<boolean>[], key: K, matched: number, nextCursor: string | null): BulkAnswer & Record<K, number> {
  const changed = results.filter((r) => r.status === 'fulfilled' && r.value).length;
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    const counts = { [key]: changed, matched, failed: results.filter((r) => r.status === 'rejected').length } as BulkCounts;
    throw new PartialWrite(failure.reason, counts);
  }
  const answer = { [key]: changed, matched, skipped: results.length - changed, complete: nextCursor === null, next_cursor: nextCursor };
  return answer as unknown as BulkAnswer & Record<K, number>;
}
