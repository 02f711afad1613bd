import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { AWS_LIMITS } from '../../../limits';
import type { Model } from '../../../models/model';
import type { ErrorDetail } from '../../../models/details';
import { checkAgainst } from '../../../models/validate';
import { db } from '../../client';
import { BatchOutOfTime, InvalidRecord, RecordExists, RepeatedIds, TableUnreachable } from '../../errors';
import { checkItemSize } from '../../write/item-size';
import { modelLayout } from '../../layout/layout';
import type { Item } from '../../read/query';
import { toRecord } from '../../read/projection';
import type { Action, ActionOptions, ApiRecord, CreateRequest } from '../../types';
import { CREATED_ATTRIBUTE, UPDATED_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../../table';
import { isConditionFailure, newWriteToken, rememberedAfter, writtenBy } from '../../write/write-token';
import { settledByCaller } from '../../attempts';
import { isExpired } from '../../expiry/ttl';
import { failureOf, judgeCreate, settleLateWrite } from '../../write/late-write';
import { reached } from '../../reach';
import { stampedFor } from '../../write/row-rules';
import { storedItem, type NewRecord } from './item';
import { batchParams, putParams } from './params';
import { inTime } from '../../../invocation';
import { awaitTurn } from '../../bulk/contention';

/** Every entry's data as its model takes it, or one InvalidRecord listing every problem of them all. */
async function validRecords(model: Model, entries: ReadonlyArray<{ id: string; data: unknown }>, pathOf: (i: number) => PropertyKey[]): Promise<NewRecord[]> {
  const details: ErrorDetail[] = [];
  const valid: NewRecord[] = [];
  for (const [i, entry] of entries.entries()) {
    const result = await checkAgainst(model.schema, await stampedFor(model, entry.data, pathOf(i)), pathOf(i));
    details.push(...result.details);
    if (result.value) valid.push({ id: entry.id, data: result.value as Record<string, unknown> });
  }
  if (details.length > 0) throw new InvalidRecord(details);
  const repeated = entries.map((e) => e.id).filter((id, i, all) => all.indexOf(id) !== i);
  if (repeated.length > 0) throw new RepeatedIds([...new Set(repeated)]);
  return valid;
}

export interface CreateOptions extends ActionOptions {
  /** Where the i-th record sits in the caller's own request, for the paths of its problems; `records[i]` when not given. */
  pathOf?: (i: number) => PropertyKey[];
  /**
   * Whether a write may still start; always, when not given. Only the API's create stops short of
   * the invocation's deadline: the OneBot receiver and queue consumer write until their calls are cut off.
   */
  mayStart?: () => boolean;
}

/**
 * Validates every record first (one InvalidRecord lists them all, nothing is written), then
 * writes them with attribute_not_exists, so an existing id is never overwritten: one record
 * with PutItem, a batch in one TransactWriteItems (up to 100 actions), so that a batch is
 * stored whole or not at all even if the function is stopped or killed mid-way. No write starts
 * once `mayStart` says no (the API's create passes shared/invocation.ts bulkMayContinue: BatchOutOfTime, nothing stored).
 */
export const createRecords: Action<CreateRequest, ApiRecord[], CreateOptions> = async (model, request, options) =>
  (await createItems(model, request, options)).map((item) => toRecord(item));

/** createRecords' items as stored, system attributes and all (a record's entity tag is made from them). */
export const createItems: Action<CreateRequest, Item[], CreateOptions> = async (
  defined,
  { records: entries },
  { keyRun, reach, pathOf = (i: number) => ['records', i], mayStart = () => true } = {},
) => {
  const model = reached(defined, reach);
  const operation = keyRun?.operation;
  // A model its stored records cannot follow takes no new record either (LayoutMismatch).
  await modelLayout(model);
  const now = new Date().toISOString();
  // Under an Idempotency-Key's run each record's write token is the run's, so a retry finds what an earlier run wrote.
  const tokenOf = (i: number) => (operation === undefined ? newWriteToken() : `${operation}.${i}`);
  const keyRuns = operation === undefined ? undefined : rememberedAfter(undefined, operation);
  const items = (await validRecords(model, entries, pathOf)).map((r, i) => storedItem(model, r, now, tokenOf(i), keyRuns));
  for (const item of items) checkItemSize(item, item.id as string);
  if (!mayStart()) throw new BatchOutOfTime();
  if (items.length === 1) return [await putOne(model, items[0], operation)];
  const stored: Item[] = [];
  // The API's batches fit one transaction; the store's own callers (seeding, tests) may send more, a transaction at a time.
  for (let i = 0; i < items.length; i += AWS_LIMITS.transactionActions)
    stored.push(...(await putAll(model, items.slice(i, i + AWS_LIMITS.transactionActions), operation)));
  return stored;
};

/**
 * Sends a create (one record's put, or a batch's transaction) made under attribute_not_exists:
 * the items as stored. When its answer is lost it is settled by its first item (a batch is one
 * write, so its first record tells whether and when it landed): this create's token, or under
 * an Idempotency-Key its run (a retry meeting that run's write), means it landed, with the times
 * the landed copy wrote; another writer's record means it never will.
 */
async function sendCreate(model: Model, items: Item[], send: () => Promise<unknown>, keyOperation: string | undefined): Promise<Item[]> {
  try {
    await send();
    return items;
  } catch (error) {
    const { cause, inDoubt } = failureOf(error);
    // A keyed run may meet an earlier run's write even on its first attempt.
    if (!inDoubt && !(keyOperation !== undefined && isConditionFailure(cause))) throw cause;
    const first = items[0];
    const ours = (stored: Item) =>
      stored[WRITE_TOKEN_ATTRIBUTE] === first[WRITE_TOKEN_ATTRIBUTE] || (keyOperation !== undefined && writtenBy(stored, keyOperation));
    const verdict = await settleLateWrite(cause, {
      model,
      id: first.id as string,
      // An expired record in its place is one this create may still replace (putParams): as if absent.
      judge: (stored) => judgeCreate(ours)(stored && isExpired(stored) ? undefined : stored),
      resend: async () => {
        await send();
        return first;
      },
    });
    if (verdict.kind === 'not_applied') throw new RecordExists(model.name, [first.id as string]);
    return asLanded(items, verdict.item ?? first);
  }
}

async function putOne(model: Model, item: Item, keyOperation: string | undefined): Promise<Item> {
  try {
    const [stored] = await sendCreate(model, [item], () => db().send(settledByCaller(new PutCommand(putParams(item, model))), inTime()), keyOperation);
    return stored;
  } catch (error) {
    if (isConditionFailure(error)) throw new RecordExists(model.name, [item.id as string]);
    throw error;
  }
}

/** Why DynamoDB cancelled a transaction, per action (its CancellationReasons codes). */
const reasonsOf = (error: TransactionCanceledException) => (error.CancellationReasons ?? []).map((r) => r.Code ?? 'None');

/** The batch's items as stored: one write, written with one time, so its first record tells when it landed. */
const asLanded = (items: Item[], first: Item): Item[] =>
  items.map((item) => ({ ...item, [CREATED_ATTRIBUTE]: first[CREATED_ATTRIBUTE], [UPDATED_ATTRIBUTE]: first[UPDATED_ATTRIBUTE] }));

/**
 * A batch's transaction. Cancelled because another transaction held one of its items
 * (TransactionConflict), it wrote nothing and is sent again after a jittered pause, as the
 * transaction route does, until the contention attempts or the time run out: RecordBusy then.
 * DynamoDB Local answers such conflicts under load even for fresh ids (a clean-clone run's batch
 * create of 50 new records answered 409 record_busy beside the feed's transactions).
 */
async function putAll(model: Model, items: Item[], keyOperation: string | undefined): Promise<Item[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendCreate(model, items, () => db().send(settledByCaller(new TransactWriteCommand(batchParams(items, model))), inTime()), keyOperation);
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = reasonsOf(error);
      const conflicts = items.filter((_, i) => reasons[i] === 'ConditionalCheckFailed').map((item) => item.id as string);
      if (conflicts.length > 0) throw new RecordExists(model.name, conflicts);
      const busy = reasons.indexOf('TransactionConflict');
      if (busy < 0) throw new TableUnreachable(error);
      await awaitTurn(attempt, items[busy].id as string);
    }
  }
}
