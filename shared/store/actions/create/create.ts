import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { AWS_LIMITS } from '../../../limits';
import type { Model } from '../../../models/define';
import type { ErrorDetail } from '../../../models/details';
import { checkAgainst } from '../../../models/validate';
import { db } from '../../client';
import { beforeCutoff } from '../../deadline';
import { BatchOutOfTime, InvalidRecord, RecordBusy, RecordExists, RepeatedIds, TableUnreachable } from '../../errors';
import { checkItemSize } from '../../item-size';
import { modelLayout } from '../../layout';
import type { Item } from '../../query';
import { toRecord, type ApiRecord } from '../../record';
import { WRITE_TOKEN_ATTRIBUTE } from '../../table';
import { currentItem, isConditionFailure, landed, wasRetried } from '../../write-token';
import { storedItem, type NewRecord } from './item';
import { batchParams, putParams } from './params';
import { inTime } from '../../../deadline';

/** Every entry's data as its model takes it, or one InvalidRecord listing every problem of them all. */
function validRecords(model: Model, entries: ReadonlyArray<{ id: string; data: unknown }>, pathOf: (i: number) => PropertyKey[]): NewRecord[] {
  const details: ErrorDetail[] = [];
  const valid: NewRecord[] = [];
  entries.forEach((entry, i) => {
    const result = checkAgainst(model.schema, entry.data, pathOf(i));
    details.push(...result.details);
    if (result.value) valid.push({ id: entry.id, data: result.value as Record<string, unknown> });
  });
  if (details.length > 0) throw new InvalidRecord(details);
  const repeated = entries.map((e) => e.id).filter((id, i, all) => all.indexOf(id) !== i);
  if (repeated.length > 0) throw new RepeatedIds([...new Set(repeated)]);
  return valid;
}

/**
 * Validates every record first (one InvalidRecord lists them all, nothing is written), then
 * writes them with attribute_not_exists, so an existing id is never overwritten: one record
 * with PutItem, a batch in one TransactWriteItems (up to 100 actions), so that a batch is
 * stored whole or not at all even if the function is stopped or killed mid-way. No write starts
 * within the reserve before the deadline (BatchOutOfTime, nothing stored).
 */
export async function createRecords(
  model: Model,
  entries: ReadonlyArray<{ id: string; data: unknown }>,
  pathOf: (i: number) => PropertyKey[],
  deadline = Infinity,
): Promise<ApiRecord[]> {
  // A model its stored records cannot follow takes no new record either (LayoutMismatch).
  await modelLayout(model);
  const now = new Date().toISOString();
  const items = validRecords(model, entries, pathOf).map((r) => storedItem(model, r, now));
  for (const item of items) checkItemSize(item, item.id as string);
  if (!beforeCutoff(deadline)()) throw new BatchOutOfTime();
  if (items.length === 1) await putOne(model, items[0]);
  // The API's batches fit one transaction; the store's own callers (seeding, tests) may send more, a transaction at a time.
  else for (let i = 0; i < items.length; i += AWS_LIMITS.transactionActions) await putAll(model, items.slice(i, i + AWS_LIMITS.transactionActions));
  return items.map((item) => toRecord(item));
}

async function putOne(model: Model, item: Item): Promise<void> {
  try {
    await db().send(new PutCommand(putParams(item)), inTime());
  } catch (error) {
    if (await landed(error, model, item.id as string, item[WRITE_TOKEN_ATTRIBUTE])) return;
    if (isConditionFailure(error)) throw new RecordExists(model.name, [item.id as string]);
    throw error;
  }
}

/** Why DynamoDB cancelled a transaction, per action (its CancellationReasons codes). */
const reasonsOf = (error: TransactionCanceledException) => (error.CancellationReasons ?? []).map((r) => r.Code ?? 'None');

async function putAll(model: Model, items: Item[]): Promise<void> {
  try {
    await db().send(new TransactWriteCommand(batchParams(items)), inTime());
  } catch (error) {
    // The batch is one write: its first record tells whether it landed.
    if (!(error instanceof TransactionCanceledException)) {
      if (await landed(error, model, items[0].id as string, items[0][WRITE_TOKEN_ATTRIBUTE])) return;
      throw error;
    }
    const reasons = reasonsOf(error);
    const conflicts = items.filter((_, i) => reasons[i] === 'ConditionalCheckFailed').map((item) => item.id as string);
    if (conflicts.length > 0) {
      // A retried attempt that meets the batch's own first attempt: that one landed, whole.
      if (wasRetried(error) && (await currentItem(model, items[0].id as string))?.[WRITE_TOKEN_ATTRIBUTE] === items[0][WRITE_TOKEN_ATTRIBUTE]) return;
      throw new RecordExists(model.name, conflicts);
    }
    // Another transaction held one of the items: nothing was written, and a retry may pass.
    const busy = reasons.indexOf('TransactionConflict');
    if (busy >= 0) throw new RecordBusy(items[busy].id as string);
    throw new TableUnreachable(error);
  }
}
