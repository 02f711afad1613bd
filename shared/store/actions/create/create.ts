import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { LIMITS } from '../../../limits';
import type { Model } from '../../../models/define';
import type { ErrorDetail } from '../../../models/details';
import { checkAgainst } from '../../../models/validate';
import { db } from '../../client';
import { beforeCutoff } from '../../deadline';
import { BatchOutOfTime, InvalidRecord, RecordExists, RepeatedIds } from '../../errors';
import { checkItemSize } from '../../item-size';
import { mapPool } from '../../pool';
import type { Item } from '../../query';
import { toRecord, type ApiRecord } from '../../record';
import { WRITE_TOKEN_ATTRIBUTE } from '../../table';
import { isConditionFailure, landed } from '../../write-token';
import { storedItem, type NewRecord } from './item';
import { putParams, undoParams } from './params';
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
 * writes each with attribute_not_exists so an existing id is never overwritten. If any id turns
 * out to exist, the records this request did create are removed again, so RecordExists changes
 * nothing. The same holds at the deadline: no write starts within the reserve before it, and a
 * batch that could not be written whole is removed again (BatchOutOfTime), never left
 * half-stored by a frozen function.
 */
export async function createRecords(
  model: Model,
  entries: ReadonlyArray<{ id: string; data: unknown }>,
  pathOf: (i: number) => PropertyKey[],
  deadline = Infinity,
): Promise<ApiRecord[]> {
  const now = new Date().toISOString();
  const items = validRecords(model, entries, pathOf).map((r) => storedItem(model, r, now));
  for (const item of items) checkItemSize(item, item.id as string);
  const results = await mapPool(
    items,
    LIMITS.writeConcurrency,
    async (item) => {
      try {
        await db().send(new PutCommand(putParams(item)), inTime());
      } catch (error) {
        if (!(await landed(error, model, item.id as string, item[WRITE_TOKEN_ATTRIBUTE]))) throw error;
      }
    },
    beforeCutoff(deadline),
  );
  const conflicts = items.filter((_, i) => results[i]?.status === 'rejected' && isConditionFailure((results[i] as PromiseRejectedResult).reason));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !isConditionFailure(r.reason));
  const outOfTime = results.length < items.length;
  if (conflicts.length > 0 || failed || outOfTime) {
    const written = items.filter((_, i) => results[i]?.status === 'fulfilled');
    const notRemoved = await undoCreates(written);
    if (failed && conflicts.length === 0) throw failed.reason;
    if (conflicts.length === 0) throw new BatchOutOfTime(notRemoved);
    throw new RecordExists(
      model.name,
      conflicts.map((c) => c.id as string),
      notRemoved,
    );
  }
  return items.map((item) => toRecord(item));
}

/** Removes records this request created, unless someone wrote them since. Returns the ids left. */
async function undoCreates(items: ReadonlyArray<Item>): Promise<string[]> {
  const results = await mapPool(items, LIMITS.writeConcurrency, (item) => db().send(new DeleteCommand(undoParams(item)), inTime()));
  return items.filter((_, i) => results[i].status === 'rejected').map((item) => item.id as string);
}
