import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../config';
import { inTime } from '../../invocation';
import type { ErrorDetail } from '../../models/details';
import type { Model } from '../../models/model';
import { checkAgainst } from '../../models/validate';
import { putParams } from '../actions/create/params';
import { storedItem } from '../actions/create/item';
import { db } from '../client';
import { ItemTooLarge } from '../errors';
import { modelLayout } from '../layout/layout';
import { sameValue } from '../operators/same-value';
import { toRecord } from '../read/projection';
import type { Item, Key } from '../read/query';
import { DATA_ATTRIBUTE, TABLE_KEY, UPDATED_ATTRIBUTE, VERSION_ATTRIBUTE } from '../table';
import { unchangedSince } from '../write/write-token';
import { ExpressionBuilder } from '../filter/expression';
import { checkItemSize } from '../write/item-size';
import { stampedFor } from '../write/row-rules';

/** A record as an export wrote it: its id and system fields kept, so that the copy reads as the original did. */
export interface KeptRecord {
  id: string;
  data: Record<string, unknown>;
  /** None: a new record (written by another tool), created and updated when stored, version 1, and the same as a stored one whose data is. */
  system?: { createdAt: string; updatedAt: string; version: number };
}

export type KeptOutcome =
  | { kind: 'created' }
  /** The same record (data and system fields) is stored already: what a resumed import meets. */
  | { kind: 'skipped' }
  /** Another record is stored under the id: left as it is. */
  | { kind: 'differs' }
  | { kind: 'overwritten' }
  | { kind: 'refused'; details: ErrorDetail[] };

/** Times a batch is written: once blind, then read and written again while another writer changes its records in between. */
const ATTEMPTS = 5;

const keyText = (key: Key) => `${key[TABLE_KEY.partitionKey]}\u0000${key[TABLE_KEY.sortKey]}`;

/** The item a kept record is stored as: a new record's, with the times and version it had (its expiry counted from when it was created). */
function keptItem(model: Model, record: KeptRecord, data: Record<string, unknown>, now: string): Item {
  const { createdAt, updatedAt, version } = record.system ?? { createdAt: now, updatedAt: now, version: 1 };
  return { ...storedItem(model, { id: record.id, data }, createdAt), [UPDATED_ATTRIBUTE]: updatedAt, [VERSION_ATTRIBUTE]: version };
}

/** Whether the stored item is the record: data and system fields, or its data alone for a record without system fields. */
const sameRecord = (stored: Item, item: Item, record: KeptRecord): boolean =>
  record.system ? sameValue(toRecord(stored), toRecord(item)) : sameValue(stored[DATA_ATTRIBUTE], item[DATA_ATTRIBUTE]);

/** The item checked as create checks a new record (shared/store/actions/create/create.ts), or why it is refused. */
async function checkedItem(model: Model, record: KeptRecord, now: string): Promise<Item | ErrorDetail[]> {
  const { value, details } = await checkAgainst(model.schema, await stampedFor(model, record.data, ['data']), ['data']);
  if (details.length > 0 || !value) return details;
  const item = keptItem(model, record, value as Record<string, unknown>, now);
  try {
    checkItemSize(item, record.id);
  } catch (error) {
    if (!(error instanceof ItemTooLarge)) throw error;
    return [{ path: 'data', message: error.message }];
  }
  return item;
}

/** The items stored under these keys, by key: one consistent BatchGetItem (up to 100 keys), its unprocessed keys asked again. */
async function storedUnder(keys: Key[]): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  let asked: Key[] = keys;
  while (asked.length > 0) {
    const answer = await db().send(new BatchGetCommand({ RequestItems: { [settings().TABLE_NAME]: { Keys: asked, ConsistentRead: true } } }), inTime());
    for (const item of answer.Responses?.[settings().TABLE_NAME] ?? []) found.set(keyText(item as Key), item);
    asked = (answer.UnprocessedKeys?.[settings().TABLE_NAME]?.Keys ?? []) as Key[];
  }
  return found;
}

/**
 * Stores records an export wrote, keeping their ids, tenants, owners and system fields: each
 * checked as create checks one (a refused record is reported with its problems, the rest go
 * on), then compared with what its id holds: nothing is written over the same record, another
 * record is left as it is unless `overwrite`. The batch (up to 100 records, distinct ids) is one
 * transaction, conditional on what was read, so it lands whole or not at all, and a run killed
 * anywhere leaves records an import run again finds the same and skips.
 */
export async function putKept(
  model: Model,
  records: ReadonlyArray<KeptRecord>,
  { overwrite = false, readFirst = false }: { overwrite?: boolean; readFirst?: boolean } = {},
): Promise<KeptOutcome[]> {
  await modelLayout(model);
  const outcomes: KeptOutcome[] = [];
  const items: Array<Item | undefined> = [];
  const now = new Date().toISOString();
  for (const record of records) {
    const checked = await checkedItem(model, record, now);
    items.push(Array.isArray(checked) ? undefined : checked);
    outcomes.push(Array.isArray(checked) ? { kind: 'refused', details: checked } : { kind: 'created' });
  }
  const keys = items.map((item) =>
    item ? { [TABLE_KEY.partitionKey]: item[TABLE_KEY.partitionKey] as string, [TABLE_KEY.sortKey]: item[TABLE_KEY.sortKey] as string } : undefined,
  );
  for (let attempt = 1; ; attempt++) {
    // Written as new records without a read first, unless `readFirst` (the records before were there already: a resumed run):
    // a record already there cancels the write, and the batch is read.
    const stored = attempt === 1 && !readFirst ? new Map<string, Item>() : await storedUnder(keys.filter((key) => key !== undefined));
    const writes: NonNullable<TransactWriteCommandInput['TransactItems']> = [];
    items.forEach((item, i) => {
      if (!item) return;
      const existing = stored.get(keyText(keys[i]!));
      if (!existing) {
        outcomes[i] = { kind: 'created' };
        writes.push({ Put: putParams(item) });
      } else if (sameRecord(existing, item, records[i])) outcomes[i] = { kind: 'skipped' };
      else if (!overwrite) outcomes[i] = { kind: 'differs' };
      else {
        outcomes[i] = { kind: 'overwritten' };
        const x = new ExpressionBuilder();
        writes.push({ Put: { TableName: settings().TABLE_NAME, Item: item, ConditionExpression: unchangedSince(x, existing), ...x.attributes() } });
      }
    });
    if (writes.length === 0) return outcomes;
    try {
      // The SDK sends a retry with the same ClientRequestToken, so a transaction whose answer was lost is not applied twice.
      await db().send(new TransactWriteCommand({ TransactItems: writes }), inTime());
      return outcomes;
    } catch (error) {
      // A record was there (or another writer changed one since it was read): nothing was written; read them and write again.
      if (!(error instanceof TransactionCanceledException) || attempt >= ATTEMPTS) throw error;
    }
  }
}
